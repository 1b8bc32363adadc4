//go:build !unix

package main

// openFlags adds nothing where the system has no non-blocking or
// no-follow open; openRegular's checks before and after the open remain.
func openFlags(bool) int { return 0 }
