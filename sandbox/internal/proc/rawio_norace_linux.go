//go:build !race

package proc

// beforeWrite and afterRead tell the race detector of a pipe's ordering
// (see rawio_race_linux.go); without it they are nothing.
func beforeWrite() {}

func afterRead() {}
