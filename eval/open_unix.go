//go:build unix

package main

import "syscall"

// openFlags keeps opening a file verify reads from blocking (a named pipe
// with no writer) and, unless follow, from following a link swapped in
// after the check.
func openFlags(follow bool) int {
	if follow {
		return syscall.O_NONBLOCK
	}
	return syscall.O_NONBLOCK | syscall.O_NOFOLLOW
}
