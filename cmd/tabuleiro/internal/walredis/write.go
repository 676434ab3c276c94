package walredis

import (
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2/server"
)

// write runs a client's write command under the write lock and appends
// its entry to the log; the reply goes out once the entry is durable
// (gatedConn).
func (s *Store) write(p *server.Peer, ps *peerState, full []string, md mode) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w != nil {
		if err := s.w.failed(); err != nil {
			p.WriteError("IOERR the embedded store's write-ahead log failed: " + err.Error())
			return true
		}
	}
	var cmds [][]string
	tx := false
	switch md {
	case modePlain:
		cmds = [][]string{full}
	case modeExec:
		tx = true
		for _, q := range ps.queue {
			if q[0] == "EVALSHA" || q[0] == "EVALSHA_RO" {
				s.smu.Lock()
				body, ok := s.scripts[strings.ToLower(q[1])]
				s.smu.Unlock()
				if ok {
					q = append([]string{"EVAL", body}, q[2:]...)
				}
			}
			cmds = append(cmds, q)
		}
	}
	now := time.Now()
	var lsn int64
	if s.w != nil {
		lsn = s.w.reserve()
	}
	c := &capture{log: md == modeScript}
	s.hintsFor(c, cmds)
	s.capture = c
	s.m.SetTime(now)
	ps.running = true
	s.srv.Dispatch(p, full)
	ps.running = false
	s.m.SetTime(time.Time{})
	s.capture = nil
	if md == modeScript {
		cmds = c.cmds
	}
	s.settle(now, cmds, c)
	if s.w != nil {
		if md == modeExec && !anyLogged(s, cmds) {
			cmds = nil // only reads
		}
		s.w.append(&entry{lsn: lsn, at: now, tx: tx, cmds: cmds})
		s.maybeCompact()
	}
	return true
}

func anyLogged(s *Store, cmds [][]string) bool {
	for _, c := range cmds {
		if s.logged(c[0]) || strings.HasPrefix(c[0], "EVAL") {
			return true
		}
	}
	return false
}

// nested sees each command a script runs (miniredis holds its lock).
func (s *Store) nested(p *server.Peer, cmd string, args []string) bool {
	switch cmd {
	case "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME":
		p.WriteError("ERR " + cmd + " is not available inside scripts on the embedded store")
		return true
	}
	if msg := refused(cmd, args); msg != "" && !blockingPop(cmd) && cmd != "SELECT" {
		p.WriteError(msg)
		return true
	}
	c := s.capture
	if c == nil || !s.logged(cmd) {
		return false
	}
	full := append([]string{cmd}, args...)
	if c.log {
		c.cmds = append(c.cmds, full)
	}
	s.hintsFor(c, [][]string{full})
	c.keys = append(c.keys, keysOf(cmd, args)...)
	return false
}

// keysOf returns the keys whose TTL a write command may set, move or
// drop.
func keysOf(cmd string, args []string) []string {
	switch cmd {
	case "DEL", "UNLINK":
		return args
	case "MSET", "MSETNX":
		var ks []string
		for i := 0; i < len(args); i += 2 {
			ks = append(ks, args[i])
		}
		return ks
	case "RENAME", "RENAMENX", "COPY", "SMOVE", "LMOVE", "RPOPLPUSH":
		if len(args) >= 2 {
			return args[:2]
		}
	case "BITOP":
		if len(args) >= 2 {
			return args[1:2]
		}
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO":
		return nil // the commands it runs are seen one by one
	}
	if len(args) == 0 {
		return nil
	}
	return args[:1]
}

// hintsFor notes, before cmds run, the deadline a RENAME or COPY carries
// from its source to its destination, and whether a flush runs.
func (s *Store) hintsFor(c *capture, cmds [][]string) {
	for _, full := range cmds {
		switch full[0] {
		case "RENAME", "RENAMENX", "COPY":
			if len(full) >= 3 {
				if at, ok := s.exp.get(full[1]); ok {
					if c.hints == nil {
						c.hints = map[string]int64{}
					}
					c.hints[full[2]] = at
				}
			}
		case "FLUSHALL", "FLUSHDB":
			c.flush = true
		}
	}
}

// settle brings the deadlines of the keys cmds (and c's scripts) touched
// up to date from what miniredis now holds: no TTL drops the deadline, a
// fresh TTL (one that is not the marker) sets it from at, and the marker
// keeps it.
func (s *Store) settle(at time.Time, cmds [][]string, c *capture) {
	if c.flush {
		s.exp.clear()
	}
	keys := c.keys
	for _, full := range cmds {
		keys = append(keys, keysOf(full[0], full[1:])...)
	}
	for _, k := range keys {
		switch v := s.m.TTL(k); v {
		case 0:
			s.exp.drop(k)
		case marker:
			if h, ok := c.hints[k]; ok {
				s.exp.set(k, h)
			}
		default:
			s.exp.set(k, at.UnixNano()+int64(v))
			s.m.SetTTL(k, marker)
		}
	}
}
