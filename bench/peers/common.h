/*
 * Shared by the peer programs: options, iteration scaling and the output
 * line. The Go peer (bench/p2pprog) follows the same rules, so both sides
 * of a comparison do the same amount of work; package bench parses the
 * lines of both.
 *
 * Options: -s SIZES (comma-separated bytes; default 1 B to 4 MiB, powers
 * of two), -n BASE (iterations for messages up to 8 KiB), -w WINDOW
 * (messages in flight for bw and msgrate). Rank 0 prints one line per
 * case:
 *
 *   {"bench":"latency","ranks":2,"size":1,"iters":1000,"value":6.9}
 */
#ifndef PEERS_COMMON_H
#define PEERS_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SIZES 64
#define MIN_ITERS 4
#define SMALL_LIMIT 8192

struct opts {
	long sizes[MAX_SIZES];
	int nsizes;
	long base;
	int window;
};

static inline void default_sizes(struct opts *o)
{
	o->nsizes = 0;
	for (long s = 1; s <= 4L << 20; s <<= 1)
		o->sizes[o->nsizes++] = s;
}

static inline void parse_sizes(struct opts *o, char *list)
{
	o->nsizes = 0;
	for (char *t = strtok(list, ","); t && o->nsizes < MAX_SIZES; t = strtok(NULL, ","))
		o->sizes[o->nsizes++] = strtol(t, NULL, 10);
}

static inline void parse_opts(int argc, char **argv, struct opts *o, long base)
{
	int c;
	default_sizes(o);
	o->base = base;
	o->window = 64;
	while ((c = getopt(argc, argv, "s:n:w:")) != -1) {
		switch (c) {
		case 's': parse_sizes(o, optarg); break;
		case 'n': o->base = strtol(optarg, NULL, 10); break;
		case 'w': o->window = (int)strtol(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: %s [-s sizes] [-n iters] [-w window]\n", argv[0]);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (o->base < 1 || o->window < 1 || o->window > 1024)
		MPI_Abort(MPI_COMM_WORLD, 2);
}

/* scaled_iters keeps the bytes moved per size roughly constant above
 * 8 KiB, so 4 MiB cases take as long as small ones, not 500 times longer. */
static inline long scaled_iters(long base, long size)
{
	long n = base;
	if (size > SMALL_LIMIT)
		n = base * SMALL_LIMIT / size;
	return n < MIN_ITERS ? MIN_ITERS : n;
}

static inline long warmup_iters(long iters) { return iters / 10 + 1; }

/* HEAT_SECONDS is how long, at least, the first case's warm-up repeats:
 * ranks that slept through their start are slower for their first
 * milliseconds (bench/p2pprog's heat.go does the same). keep_heating is
 * rank 0's decision, after a round, whether to go on, told to every rank. */
#define HEAT_SECONDS 0.1

static inline int keep_heating(double t0)
{
	int more = MPI_Wtime() - t0 < HEAT_SECONDS;
	MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return more;
}

static inline void emit(const char *bench, long size, long iters, double value)
{
	int n;
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	printf("{\"bench\":\"%s\",\"ranks\":%d,\"size\":%ld,\"iters\":%ld,\"value\":%.6g}\n",
	       bench, n, size, iters, value);
	fflush(stdout);
}

static inline char *alloc_buf(long size)
{
	char *b = malloc(size > 0 ? size : 1);
	if (!b)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(b, 'a', size > 0 ? size : 1);
	return b;
}

#endif
