/* window: the streaming pattern of bw and msgrate. Rank 0 posts a window
 * of non-blocking sends, rank 1 a window of non-blocking receives; after
 * each window rank 1 acknowledges with a 4-byte message, so the sender
 * never runs more than one window ahead. */
#ifndef PEERS_WINDOW_H
#define PEERS_WINDOW_H

#include "common.h"

static void windows(int rank, char *buf, long size, int window, long n)
{
	MPI_Request reqs[1024];
	char ack[4];
	for (long i = 0; i < n; i++) {
		if (rank == 0) {
			for (int w = 0; w < window; w++)
				MPI_Isend(buf, size, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &reqs[w]);
			MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
			MPI_Recv(ack, 4, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			for (int w = 0; w < window; w++)
				MPI_Irecv(buf, size, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &reqs[w]);
			MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
			MPI_Send(ack, 4, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
		}
	}
}

/* timed_windows runs warm-up windows, then returns the seconds n take. */
static double timed_windows(int rank, char *buf, long size, int window, long n)
{
	static int heated;
	MPI_Barrier(MPI_COMM_WORLD);
	if (!heated) {
		double t0 = MPI_Wtime();
		do
			windows(rank, buf, size, window, warmup_iters(n));
		while (keep_heating(t0));
		heated = 1;
	}
	windows(rank, buf, size, window, warmup_iters(n));
	double t0 = MPI_Wtime();
	windows(rank, buf, size, window, n);
	return MPI_Wtime() - t0;
}

#endif
