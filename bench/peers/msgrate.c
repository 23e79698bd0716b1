/* msgrate: 8-byte messages per second from rank 0 to rank 1. */
#include "window.h"

int main(int argc, char **argv)
{
	struct opts o;
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	parse_opts(argc, argv, &o, 1000);
	char *buf = alloc_buf(8);
	double t = timed_windows(rank, buf, 8, o.window, o.base);
	if (rank == 0)
		emit("msgrate", 8, o.base, (double)o.window * o.base / t);
	free(buf);
	MPI_Finalize();
	return 0;
}
