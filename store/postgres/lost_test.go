package postgres

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestLostTellsAFailedConnectionFromARefusedStatement(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the server shutting down (57P01)", &pgconn.PgError{Code: "57P01"}, true},
		{"the server starting (57P03)", &pgconn.PgError{Code: "57P03"}, true},
		{"a connection exception (08006)", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections (53300)", fmt.Errorf("failed to connect: %w", &pgconn.PgError{Code: "53300"}), true},
		{"a disk full (53100)", &pgconn.PgError{Code: "53100"}, false},
		{"a connection cut short", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"a connection refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"a connection reset", fmt.Errorf("write: %w", syscall.ECONNRESET), true},
		{"a connection pgx closed", fmt.Errorf("exec: %w", pgconn.ErrConnClosed), true},
		{"a key taken (23505)", &pgconn.PgError{Code: "23505"}, false},
		{"a syntax error (42601)", &pgconn.PgError{Code: "42601"}, false},
		{"a serialization failure (40001)", &pgconn.PgError{Code: "40001"}, false},
		{"an error of the application", errors.New("no"), false},
	} {
		if got := lost(tc.err); got != tc.want {
			t.Errorf("%s: lost = %v, want %v", tc.name, got, tc.want)
		}
	}
}
