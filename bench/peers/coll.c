/* coll: microseconds per MPI_Barrier, MPI_Bcast of 8 bytes from rank 0 and
 * MPI_Allreduce of one double (sum), averaged over the ranks. */
#include "common.h"

/* report prints the mean over ranks of each rank's seconds per op. */
static void report(const char *bench, long size, long n, double secs)
{
	int rank, ranks;
	double sum = 0, mine = secs / n;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		emit(bench, size, n, sum / ranks * 1e6);
}

static double barriers(long n)
{
	double t0 = MPI_Wtime();
	for (long i = 0; i < n; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	return MPI_Wtime() - t0;
}

/* bcasts times each broadcast alone: the barrier between them keeps the
 * root from running ahead of the slowest receiver. */
static double bcasts(long n)
{
	double v = 1, t = 0;
	for (long i = 0; i < n; i++) {
		double t0 = MPI_Wtime();
		MPI_Bcast(&v, 8, MPI_CHAR, 0, MPI_COMM_WORLD);
		t += MPI_Wtime() - t0;
		MPI_Barrier(MPI_COMM_WORLD);
	}
	return t;
}

static double allreduces(long n)
{
	double in = 1, out = 0, t0 = MPI_Wtime();
	for (long i = 0; i < n; i++)
		MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
	struct opts o;
	MPI_Init(&argc, &argv);
	parse_opts(argc, argv, &o, 10000);
	long n = o.base, w = warmup_iters(n);
	double t0 = MPI_Wtime();
	do
		barriers(w);
	while (keep_heating(t0));
	barriers(w);
	report("barrier", 0, n, barriers(n));
	bcasts(w);
	report("bcast", 8, n, bcasts(n));
	allreduces(w);
	report("allreduce", 8, n, allreduces(n));
	MPI_Finalize();
	return 0;
}
