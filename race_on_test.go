//go:build race

package main

// raceEnabled is set under the race detector, which slows memory-bound work about
// tenfold: tests that size their inputs for speed scale down then.
const raceEnabled = true
