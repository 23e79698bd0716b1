/* latency: ping-pong between ranks 0 and 1; one-way time = round trip / 2. */
#include "common.h"

static void pingpong(int rank, char *buf, long size, long n)
{
	for (long i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o;
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	parse_opts(argc, argv, &o, 10000);
	for (int k = 0; k < o.nsizes; k++) {
		long size = o.sizes[k], iters = scaled_iters(o.base, size);
		char *buf = alloc_buf(size);
		MPI_Barrier(MPI_COMM_WORLD);
		if (k == 0) {
			double t0 = MPI_Wtime();
			do
				pingpong(rank, buf, size, warmup_iters(iters));
			while (keep_heating(t0));
		}
		pingpong(rank, buf, size, warmup_iters(iters));
		double t0 = MPI_Wtime();
		pingpong(rank, buf, size, iters);
		double t = MPI_Wtime() - t0;
		if (rank == 0)
			emit("latency", size, iters, t * 1e6 / (2.0 * iters));
		free(buf);
	}
	MPI_Finalize();
	return 0;
}
