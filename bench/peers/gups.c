/* gups: random updates per second on a global array of 2^S longs spread
 * over the ranks (-s S, default 24), the peer of the gups rows of plexus
 * bench gas. Every rank adds 1 to -n random elements with MPI_Accumulate
 * (MPI_SUM) in a passive-target epoch, flushed every 1024 updates so a
 * batch is in flight at once, then all ranks meet at a barrier. */
#include "common.h"

#define BATCH 1024

static void updates(MPI_Win win, long n, long total, int size, unsigned long long *seed)
{
	long one = 1;
	for (long i = 0; i < n; i++) {
		*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
		long idx = (long)((*seed >> 20) % (unsigned long long)total);
		MPI_Accumulate(&one, 1, MPI_LONG, (int)(idx % size), idx / size, 1, MPI_LONG, MPI_SUM, win);
		if (i % BATCH == BATCH - 1)
			MPI_Win_flush_all(win);
	}
	MPI_Win_flush_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	struct opts o;
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	parse_opts(argc, argv, &o, 1000000);
	long logn = o.nsizes == 1 ? o.sizes[0] : 24; /* -s S; the default list means none */
	if (logn < 10 || logn > 34)
		MPI_Abort(MPI_COMM_WORLD, 2);
	long total = 1L << logn, local = (total + size - 1) / size;
	long *base;
	MPI_Win win;
	MPI_Win_allocate(local * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	memset(base, 0, local * sizeof(long));
	unsigned long long seed = 88172645463325252ULL + (unsigned long long)rank;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	updates(win, o.base / 10 + 1, total, size, &seed);
	double t0 = MPI_Wtime();
	updates(win, o.base, total, size, &seed);
	double t = MPI_Wtime() - t0;
	MPI_Win_unlock_all(win);
	if (rank == 0)
		emit("gups", 8, o.base, (double)o.base * size / t);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
