package rpcerr

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// Unreachable reports whether err says that a store (Redis, PostgreSQL)
// could not be reached or is between roles: a refused or reset
// connection, a timeout, a closed or exhausted pool, a replica promoted
// or demoted under the call (READONLY, LOADING, MASTERDOWN), a Redis
// Cluster between a primary's failure and its replica's promotion
// (CLUSTERDOWN: a slot unserved; MOVED or ASK past the cluster client's
// redirects: the slot map changing under the call), no Sentinel answering, a PostgreSQL connection failure or shutdown. Such a call may
// succeed when retried, on this replica or another: Status answers it
// UNAVAILABLE, never INTERNAL (which pages), so that clients reconnect.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var nerr net.Error
	var operr *net.OpError
	var pgerr *pgconn.PgError
	var connErr *pgconn.ConnectError
	switch {
	case errors.As(err, &operr), errors.As(err, &nerr), errors.As(err, &connErr):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrPoolExhausted),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone):
		return true
	case errors.As(err, &pgerr):
		// Class 08: connection exception; 57P01-57P03: the server is
		// shutting down or starting.
		return strings.HasPrefix(pgerr.Code, "08") || pgerr.Code == "57P01" || pgerr.Code == "57P02" || pgerr.Code == "57P03"
	case pgconn.Timeout(err):
		return true
	}
	for _, prefix := range []string{"READONLY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "NOREPLICAS", "MOVED", "ASK"} {
		var rerr redis.Error
		if errors.As(err, &rerr) && redis.HasErrorPrefix(rerr, prefix) {
			return true
		}
	}
	msg := err.Error()
	for _, s := range []string{"all sentinels specified in configuration are unreachable", "no sentinels configured", "connection unusable"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
