// Package pgas is Grappa's global address space over package am: a heap
// on every rank, addressed as (rank, offset) or as one linear heap
// striped block-cyclic over the ranks.
package pgas
