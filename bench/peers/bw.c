/* bw: one-way bandwidth from rank 0 to rank 1 in MB/s (10^6 bytes). */
#include "window.h"

int main(int argc, char **argv)
{
	struct opts o;
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	parse_opts(argc, argv, &o, 100);
	for (int k = 0; k < o.nsizes; k++) {
		long size = o.sizes[k], iters = scaled_iters(o.base, size);
		char *buf = alloc_buf(size);
		double t = timed_windows(rank, buf, size, o.window, iters);
		if (rank == 0)
			emit("bandwidth", size, iters, (double)size * o.window * iters / t / 1e6);
		free(buf);
	}
	MPI_Finalize();
	return 0;
}
