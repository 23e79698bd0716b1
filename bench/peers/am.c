/* am: 32-byte messages per second from rank 0 to rank 1, in windows of
 * MPI_Isend and MPI_Waitall: Open MPI's best small-message path, the peer
 * of the am rows of plexus bench gas. */
#include "window.h"

int main(int argc, char **argv)
{
	struct opts o;
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	parse_opts(argc, argv, &o, 1000);
	char *buf = alloc_buf(32);
	double t = timed_windows(rank, buf, 32, o.window, o.base);
	if (rank == 0)
		emit("am", 32, o.base, (double)o.window * o.base / t);
	free(buf);
	MPI_Finalize();
	return 0;
}
