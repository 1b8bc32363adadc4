package byheart

import "time"

// Annotate returns text with resolved dates written beside relative expressions. WIP: no-op.
func Annotate(text string, when time.Time) string { return text }
