/* railbw: plexus bench rail's Open MPI peer, run under mpirun with one
 * rank on each of two hosts (the TCP BTL over the rails). For each size of
 * -s, rank 0 streams messages to rank 1, at least -b bytes in all (at
 * least 4 messages), in windows of non-blocking sends of -w bytes in all
 * (2 to 64 messages), and rank 1
 * acknowledges the last; the line's value is MB/s (10^6 bytes). For each
 * size of -l, a ping-pong of -n round trips; the value is the one-way time
 * in microseconds. With -m, rank 0 prints {"bench":"start",...} as each
 * bandwidth case begins, so that whoever reads its output can start a
 * competing flow then (-p MS pauses that long after it), and
 * {"bench":"half",...} once the first half of its messages are through,
 * for the flow to stop. */
#include "common.h"

struct railopts {
	struct opts bw, lat;
	long bytes, iters, pause_ms;
	long inflight;
	int marks;
};

static void parse_railopts(int argc, char **argv, struct railopts *o)
{
	int c;
	o->bw.nsizes = o->lat.nsizes = 0;
	o->bytes = 64L << 20;
	o->iters = 1000;
	o->inflight = 4L << 20;
	o->marks = 0;
	o->pause_ms = 0;
	while ((c = getopt(argc, argv, "s:l:b:n:w:p:m")) != -1) {
		switch (c) {
		case 's': parse_sizes(&o->bw, optarg); break;
		case 'l': parse_sizes(&o->lat, optarg); break;
		case 'b': o->bytes = strtol(optarg, NULL, 10); break;
		case 'n': o->iters = strtol(optarg, NULL, 10); break;
		case 'w': o->inflight = strtol(optarg, NULL, 10); break;
		case 'p': o->pause_ms = strtol(optarg, NULL, 10); break;
		case 'm': o->marks = 1; break;
		default:
			fprintf(stderr, "usage: %s [-s sizes] [-l sizes] [-b bytes] [-n iters] [-w bytes] [-p ms] [-m]\n", argv[0]);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (o->bytes < 1 || o->iters < 1 || o->inflight < 1 || o->pause_ms < 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
}

/* stream sends n messages of size bytes, window at a time, and waits for
 * rank 1's word that it has them all. With marks, rank 0 prints "half"
 * once the window holding the message that completes the first half
 * (rounded up) is through. */
static void stream(int rank, char *buf, long size, long n, int window, int marks)
{
	MPI_Request reqs[1024];
	char ack[4];
	int halved = 0;
	for (long i = 0; i < n; i += window) {
		int w = n - i < window ? (int)(n - i) : window;
		for (int k = 0; k < w; k++) {
			if (rank == 0)
				MPI_Isend(buf, size, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &reqs[k]);
			else
				MPI_Irecv(buf, size, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &reqs[k]);
		}
		MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
		if (rank == 0 && marks && !halved && i + w >= (n + 1) / 2) {
			emit("half", size, n, 0);
			halved = 1;
		}
	}
	if (rank == 0)
		MPI_Recv(ack, 4, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	else
		MPI_Send(ack, 4, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
}

static void pingpong(int rank, char *buf, long size, long n)
{
	for (long i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
	}
}

static void bandwidth(int rank, struct railopts *o, long size)
{
	long n = o->bytes / size;
	long window = o->inflight / size;
	char *buf = alloc_buf(size);
	if (n < 4)
		n = 4;
	window = window < 2 ? 2 : window > 64 ? 64 : window;
	if (window > n)
		window = n;
	stream(rank, buf, size, window, (int)window, 0); /* connections up, buffers touched */
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && o->marks) {
		emit("start", size, n, 0);
		if (o->pause_ms > 0)
			usleep(o->pause_ms * 1000);
	}
	double t0 = MPI_Wtime();
	stream(rank, buf, size, n, (int)window, o->marks);
	double t = MPI_Wtime() - t0;
	if (rank == 0)
		emit("bandwidth", size, n, (double)size * n / t / 1e6);
	free(buf);
}

static void latency(int rank, struct railopts *o, long size)
{
	char *buf = alloc_buf(size);
	pingpong(rank, buf, size, o->iters / 10 + 1);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	pingpong(rank, buf, size, o->iters);
	double t = MPI_Wtime() - t0;
	if (rank == 0)
		emit("latency", size, o->iters, t * 1e6 / (2.0 * o->iters));
	free(buf);
}

int main(int argc, char **argv)
{
	struct railopts o;
	int rank, n;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	parse_railopts(argc, argv, &o);
	for (int k = 0; k < o.lat.nsizes; k++)
		latency(rank, &o, o.lat.sizes[k]);
	for (int k = 0; k < o.bw.nsizes; k++)
		bandwidth(rank, &o, o.bw.sizes[k]);
	MPI_Finalize();
	return 0;
}
