// Package walredis is the embedded Redis of the one-process mode:
// miniredis (the same Redis protocol and commands the services use in
// production) with two things added around it.
//
// Durability, as Redis's append-only file with appendfsync always: every
// write command is appended to a write-ahead log and fsync'd before any
// client sees its reply or anything it published, and before any later
// command's reply that could have read it. Concurrent writers share one
// fsync (group commit). A script is logged by its effects (the write
// commands it ran, as Redis's effects replication does), so a script that
// only reads logs nothing; a MULTI … EXEC block is logged whole. Every
// entry carries the time it ran at, and replays at that time, so that
// stream ids chosen by '*' and relative TTLs come out the same. The log
// is compacted in the background into a snapshot, by replaying it into a
// second, private miniredis (no fork and no pause of the live one), and
// a restart loads the newest snapshot and replays the log's tail: time
// linear in the live data.
//
// Expiry, by deadline: miniredis's own clock-driven expiry walks every
// key on every command. Here miniredis keeps no running TTLs (a key with
// a TTL carries a fixed marker instead); the store keeps each key's
// absolute deadline in a min-heap, deletes due keys with a logged DEL
// (as Redis propagates expiry), from a timer and before each command, and
// answers TTL, PTTL, EXPIRETIME and PEXPIRETIME itself. Every command
// costs the same whatever the number of keys.
//
// Not supported (refused with a clear error): WATCH, SELECT of a database
// other than 0, SWAPDB, MOVE, blocking pops (BLPOP and the like; XREAD
// and XREADGROUP may block), HyperLogLogs, hash field TTLs, and the TTL
// commands inside scripts and MULTI. EXPIRE's GT and LT options compare
// with the marker, not the real TTL. A stream's consumer groups are
// logged when created and acknowledged, but what XREADGROUP, XCLAIM and
// XAUTOCLAIM delivered is not: after a restart, entries not yet
// acknowledged and deleted are delivered again (at least once).
package walredis

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// marker is the TTL miniredis holds for every key that has one: the real
// deadline is in the store's heap. A TTL miniredis reports that is not
// the marker was set by the command that just ran.
const marker = time.Duration(1 << 62)

// Options configure a Store.
type Options struct {
	// Dir holds the write-ahead log and the snapshots; "" keeps nothing
	// (expiry by deadline still applies).
	Dir string
	// Addr is where to listen; "" is a free loopback port.
	Addr string
	// Logger receives compaction and recovery notes; nil discards them.
	Logger *slog.Logger
	// CompactMinBytes: the log is compacted once it has grown by this
	// much and by as much as the last snapshot's size (default 4 MiB), so
	// that a start replays at most that much log after the snapshot.
	CompactMinBytes int64
	// Legacy, when set and Dir holds nothing yet, is a redis.jsonl
	// snapshot of the earlier embedded store, imported at the first start
	// and then renamed to Legacy+".imported".
	Legacy string
}

// Store is a running embedded Redis.
type Store struct {
	o        Options
	log      *slog.Logger
	m        *miniredis.Miniredis
	srv      *server.Server
	exp      *expiry
	internal *server.Peer // replays and expiry deletions

	w    *wal     // nil without Dir
	lock *os.File // Dir's lock (lockDir), held until Close
	ln   net.Listener

	// wmu orders every logged write: the log's order is the execution
	// order.
	wmu     sync.Mutex
	capture *capture // the running write's nested commands (under wmu)

	pmu   sync.Mutex
	peers map[*server.Peer]*peerState

	smu     sync.Mutex
	scripts map[string]string // sha1 → body, for EVALSHA inside MULTI

	consumers consumers

	snapBytes  atomic.Int64
	compacting atomic.Bool
	compactMu  sync.Mutex // one compaction at a time
	compactErr atomic.Pointer[error]

	cmu   sync.Mutex
	conns map[*gatedConn]struct{}

	stop      chan struct{}
	bg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

type peerState struct {
	internal bool
	running  bool // the store is dispatching this peer's command itself
	multi    bool
	queue    [][]string
}

// capture collects what the commands a write runs inside scripts do.
type capture struct {
	log   bool       // keep the commands: they are the entry (a script's effects)
	cmds  [][]string // the write commands run
	keys  []string   // keys whose TTL may have changed
	hints map[string]int64
	flush bool
}

// newCore returns a store without network or log: the live store's core,
// and the private one a compaction replays into.
func newCore(logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Store{
		log: logger, m: miniredis.NewMiniRedis(), exp: newExpiry(),
		peers: map[*server.Peer]*peerState{}, scripts: map[string]string{},
		conns: map[*gatedConn]struct{}{}, stop: make(chan struct{}),
	}
	// Dial starts miniredis without a listener; the store accepts
	// connections itself.
	c, err := s.m.Dial()
	if err != nil {
		return nil, err
	}
	_ = c.Close()
	s.srv = s.m.Server()
	s.internal = server.NewPeer(bufio.NewWriter(io.Discard))
	s.peers[s.internal] = &peerState{internal: true}
	s.srv.SetPreHook(s.hook)
	return s, nil
}

// Open loads what o.Dir holds (the newest snapshot, then the log's tail),
// and serves.
func Open(o Options) (_ *Store, err error) {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.CompactMinBytes <= 0 {
		o.CompactMinBytes = 4 << 20
	}
	s, err := newCore(o.Logger)
	if err != nil {
		return nil, err
	}
	s.o = o
	defer func() {
		if err != nil {
			s.m.Close()
			if s.w != nil {
				_ = s.w.close()
			}
			if s.lock != nil {
				_ = s.lock.Close()
			}
		}
	}()
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("embedded redis: %w", err)
		}
		if s.lock, err = lockDir(o.Dir); err != nil {
			return nil, err
		}
		last, oldBytes, tail, err := s.recover()
		if err != nil {
			return nil, err
		}
		if s.w, err = openWAL(o.Dir, last, oldBytes, tail); err != nil {
			return nil, err
		}
	}
	if s.ln, err = net.Listen("tcp", o.Addr); err != nil {
		return nil, fmt.Errorf("embedded redis: %w", err)
	}
	// Keys whose deadline passed while the store was stopped go now.
	s.expireDue()
	s.bg.Add(2)
	go s.accept()
	go s.expireTimer()
	return s, nil
}

// InUseError is Open's answer when another process holds the directory:
// one log has one writer.
type InUseError struct {
	Dir    string
	Holder string // "process 1234", or "another process"
}

func (e *InUseError) Error() string {
	return "the embedded Redis's log in " + e.Dir + " is in use by " + e.Holder
}

// Addr is the host:port the store listens on.
func (s *Store) Addr() string { return s.ln.Addr().String() }

// URL is the redis:// URL of the store.
func (s *Store) URL() string { return "redis://" + s.Addr() + "/0" }

func (s *Store) accept() {
	defer s.bg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		if s.w == nil {
			s.srv.ServeConn(c)
			continue
		}
		g := newGatedConn(c, s.w)
		s.cmu.Lock()
		s.conns[g] = struct{}{}
		s.cmu.Unlock()
		go func() {
			<-g.done
			s.cmu.Lock()
			delete(s.conns, g)
			s.cmu.Unlock()
		}()
		s.srv.ServeConn(g)
	}
}

// Close stops serving, waits for a running compaction to stop, and
// closes the log (everything acknowledged is already durable).
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		if s.ln != nil {
			_ = s.ln.Close()
		}
		s.m.Close() // closes every connection and waits for their commands
		s.bg.Wait()
		s.cmu.Lock()
		conns := make([]*gatedConn, 0, len(s.conns))
		for g := range s.conns {
			conns = append(conns, g)
		}
		s.cmu.Unlock()
		if s.w != nil {
			s.closeErr = s.w.close()
		}
		if s.lock != nil {
			_ = s.lock.Close() // the log is closed: another process may have it
		}
		for _, g := range conns {
			select {
			case <-g.done:
			case <-time.After(time.Second):
				_ = g.Conn.Close()
			}
		}
	})
	return s.closeErr
}

// Syncs is the number of fsyncs of the log so far.
func (s *Store) Syncs() int64 {
	if s.w == nil {
		return 0
	}
	return s.w.syncs.Load()
}

// CompactionError returns the last compaction's failure, if any.
func (s *Store) CompactionError() error {
	if p := s.compactErr.Load(); p != nil {
		return *p
	}
	return nil
}

// peer returns the state of a client connection's peer, or nil for the
// peer of a command a script runs (miniredis gives those a context before
// dispatching them; a connection's peer has none before its first
// command).
func (s *Store) peer(p *server.Peer) *peerState {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	ps, ok := s.peers[p]
	if ok {
		return ps
	}
	if p.Ctx != nil {
		return nil
	}
	ps = &peerState{}
	s.peers[p] = ps
	p.OnDisconnect(func() {
		s.pmu.Lock()
		delete(s.peers, p)
		s.pmu.Unlock()
	})
	return ps
}

// hook runs before miniredis dispatches any command; true means the
// store handled it.
func (s *Store) hook(p *server.Peer, cmd string, args ...string) bool {
	ps := s.peer(p)
	if ps == nil {
		return s.nested(p, cmd, args)
	}
	if ps.internal || ps.running {
		return false
	}
	s.expireDue()
	full := append([]string{cmd}, args...)
	if ps.multi {
		return s.queued(p, ps, full)
	}
	switch cmd {
	case "MULTI":
		ps.multi, ps.queue = len(args) == 0, nil
		return false
	case "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO":
		s.remember(cmd, args)
		return s.write(p, ps, full, modeScript)
	case "SCRIPT":
		if len(args) == 2 && strings.EqualFold(args[0], "LOAD") {
			s.remember("EVAL", args[1:])
		}
		return false
	case "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME":
		s.ttl(p, cmd, args)
		return true
	case "XREADGROUP", "XCLAIM", "XAUTOCLAIM", "XGROUP":
		s.consumers.saw(cmd, args, time.Now())
	case "XINFO":
		if s.xinfoConsumers(p, args) {
			return true
		}
	}
	if msg := refused(cmd, args); msg != "" {
		p.WriteError(msg)
		return true
	}
	if !s.logged(cmd) {
		return false
	}
	return s.write(p, ps, full, modePlain)
}

// queued handles a command of a MULTI block.
func (s *Store) queued(p *server.Peer, ps *peerState, full []string) bool {
	cmd, args := full[0], full[1:]
	switch cmd {
	case "EXEC":
		if len(args) != 0 {
			return false
		}
		s.write(p, ps, full, modeExec)
		ps.multi, ps.queue = false, nil
		return true
	case "DISCARD":
		if len(args) == 0 {
			ps.multi, ps.queue = false, nil
		}
		return false
	case "MULTI":
		return false
	case "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME":
		p.WriteError("ERR " + cmd + " is not available inside MULTI on the embedded store; call it outside the transaction")
		return true
	case "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO":
		s.remember(cmd, args)
	}
	if msg := refused(cmd, args); msg != "" && !blockingPop(cmd) {
		p.WriteError(msg)
		return true
	}
	ps.queue = append(ps.queue, full)
	return false
}

func blockingPop(cmd string) bool {
	switch cmd {
	case "BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP":
		return true
	}
	return false
}

// refused returns the error for a command the store does not support.
func refused(cmd string, args []string) string {
	switch cmd {
	case "WATCH":
		return "ERR WATCH is not supported by the embedded store: its write-ahead log replays transactions unconditionally"
	case "SELECT":
		if len(args) == 1 && args[0] != "0" {
			return "ERR the embedded store keeps database 0 only"
		}
	case "SWAPDB", "MOVE":
		return "ERR the embedded store keeps database 0 only"
	case "PFADD", "PFMERGE":
		return "ERR HyperLogLogs are not supported by the embedded store"
	case "HEXPIRE", "HPEXPIRE", "HEXPIREAT", "HPEXPIREAT", "HPERSIST", "HSETEX", "HGETEX":
		return "ERR hash field TTLs are not supported by the embedded store"
	}
	if blockingPop(cmd) {
		return "ERR blocking pops are not supported by the embedded store"
	}
	return ""
}

// readLike lists commands miniredis does not mark read-only that change
// no data (or only consumer-group delivery state, which is not logged).
var readLike = map[string]bool{
	"ZRANGEBYSCORE": true, "ZREVRANGEBYSCORE": true, "ZRANGEBYLEX": true, "ZREVRANGEBYLEX": true,
	"ZRANK": true, "ZREVRANK": true, "ZINTER": true, "XRANGE": true, "XREVRANGE": true, "XINFO": true,
	"OBJECT": true, "PUBLISH": true, "SPUBLISH": true, "PUBSUB": true, "SUBSCRIBE": true, "UNSUBSCRIBE": true,
	"PSUBSCRIBE": true, "PUNSUBSCRIBE": true, "PING": true, "ECHO": true, "HELLO": true, "AUTH": true,
	"CLIENT": true, "CLUSTER": true, "QUIT": true, "SELECT": true, "INFO": true, "TIME": true,
	"COMMAND": true, "MEMORY": true, "WAIT": true, "UNWATCH": true, "SCRIPT": true, "DISCARD": true,
	"EXEC": true, "MULTI": true, "XREADGROUP": true, "XCLAIM": true, "XAUTOCLAIM": true,
}

// logged reports whether cmd changes data: it is then run under the
// write lock and logged.
func (s *Store) logged(cmd string) bool {
	if readLike[cmd] || s.srv.IsReadOnlyCommand(cmd) || !s.srv.IsRegisteredCommand(cmd) {
		return false
	}
	return true
}

// remember keeps a script's body by its SHA-1, so that an EVALSHA inside
// MULTI is logged as the EVAL it stands for.
func (s *Store) remember(cmd string, args []string) {
	if (cmd != "EVAL" && cmd != "EVAL_RO") || len(args) == 0 {
		return
	}
	sum := sha1.Sum([]byte(args[0]))
	s.smu.Lock()
	s.scripts[hex.EncodeToString(sum[:])] = args[0]
	s.smu.Unlock()
}

type mode int

const (
	modePlain  mode = iota // the command itself is the entry
	modeScript             // the script's write commands are the entry
	modeExec               // MULTI, the queued commands, EXEC
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

// apply replays a logged entry (recovery and compaction).
func (s *Store) apply(e *entry) {
	c := &capture{}
	s.hintsFor(c, e.cmds)
	s.capture = c
	s.m.SetTime(e.at)
	if e.tx {
		s.srv.Dispatch(s.internal, []string{"MULTI"})
	}
	for _, cmd := range e.cmds {
		s.srv.Dispatch(s.internal, cmd)
	}
	if e.tx {
		s.srv.Dispatch(s.internal, []string{"EXEC"})
	}
	s.m.SetTime(time.Time{})
	s.capture = nil
	s.settle(e.at, e.cmds, c)
}

// ttl answers TTL, PTTL, EXPIRETIME and PEXPIRETIME from the deadlines.
func (s *Store) ttl(p *server.Peer, cmd string, args []string) {
	if len(args) != 1 {
		p.WriteError("ERR wrong number of arguments for '" + strings.ToLower(cmd) + "' command")
		return
	}
	k := args[0]
	if !s.m.Exists(k) {
		p.WriteInt(-2)
		return
	}
	at, ok := s.exp.get(k)
	if !ok || s.m.TTL(k) != marker {
		p.WriteInt(-1)
		return
	}
	left := max(time.Until(time.Unix(0, at)), 0)
	switch cmd {
	case "TTL":
		p.WriteInt(int((left + 500*time.Millisecond) / time.Second))
	case "PTTL":
		p.WriteInt(int(left / time.Millisecond))
	case "EXPIRETIME":
		p.WriteInt(int(at / int64(time.Second)))
	default:
		p.WriteInt(int(at / int64(time.Millisecond)))
	}
}

// expireDue deletes the keys whose deadline has passed, with a logged
// DEL; cheap when none is due.
func (s *Store) expireDue() {
	if s.exp.next.Load() > time.Now().UnixNano() {
		return
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for {
		now := time.Now()
		var keys []string
		for len(keys) < 256 {
			k, ok := s.exp.first(now.UnixNano())
			if !ok {
				break
			}
			s.exp.drop(k)
			if s.m.TTL(k) == marker {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return
		}
		var lsn int64
		if s.w != nil {
			if s.w.failed() != nil {
				return
			}
			lsn = s.w.reserve()
		}
		cmds := make([][]string, len(keys))
		s.m.SetTime(now)
		for i, k := range keys {
			cmds[i] = []string{"DEL", k}
			s.srv.Dispatch(s.internal, cmds[i])
		}
		s.m.SetTime(time.Time{})
		if s.w != nil {
			s.w.append(&entry{lsn: lsn, at: now, cmds: cmds})
		}
	}
}

// expireTimer runs expireDue when the earliest deadline comes.
func (s *Store) expireTimer() {
	defer s.bg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		d := time.Hour
		if next := s.exp.next.Load(); next != math.MaxInt64 {
			d = min(max(time.Until(time.Unix(0, next)), 0), time.Hour)
		}
		t.Reset(d)
		select {
		case <-s.stop:
			return
		case <-s.exp.kick:
		case <-t.C:
			s.expireDue()
		}
	}
}

// recover loads the newest snapshot of o.Dir and replays the log after
// it; it returns the last LSN, the bytes of log kept and the last
// segment (appended to from now on), if any.
func (s *Store) recover() (last int64, logBytes int64, tail string, err error) {
	dir := s.o.Dir
	tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	for _, t := range tmps {
		_ = os.Remove(t)
	}
	segs, snaps, err := listFiles(dir)
	if err != nil {
		return 0, 0, "", fmt.Errorf("embedded redis: %w", err)
	}
	var base int64
	if len(snaps) > 0 {
		base = snaps[len(snaps)-1]
		n, err := s.loadSnapshot(filepath.Join(dir, snapName(base)))
		if err != nil {
			return 0, 0, "", fmt.Errorf("embedded redis: %w", err)
		}
		s.snapBytes.Store(n)
		for _, old := range snaps[:len(snaps)-1] {
			_ = os.Remove(filepath.Join(dir, snapName(old)))
		}
	} else if len(segs) == 0 && s.o.Legacy != "" {
		if err := s.importLegacy(); err != nil {
			return 0, 0, "", err
		}
	}
	last = base
	for i, first := range segs {
		path := filepath.Join(dir, segName(first))
		if i+1 < len(segs) && segs[i+1] <= base+1 {
			_ = os.Remove(path) // wholly in the snapshot
			continue
		}
		_, size, err := s.replaySegment(path, base, i == len(segs)-1, func(e *entry) error {
			if e.lsn <= last {
				return fmt.Errorf("log entry %d after %d", e.lsn, last)
			}
			last = e.lsn
			return nil
		})
		if err != nil {
			return 0, 0, "", fmt.Errorf("embedded redis: %s: %w", filepath.Base(path), err)
		}
		logBytes += size
		tail = path
	}
	if err := syncDir(dir); err != nil {
		return 0, 0, "", fmt.Errorf("embedded redis: %w", err)
	}
	return last, logBytes, tail, nil
}

// replaySegment applies the entries of a segment after base; a damaged
// record ends the last segment (a crash in the middle of a write), which
// is cut there, and is an error anywhere else.
func (s *Store) replaySegment(path string, base int64, isLast bool, check func(*entry) error) (n int, size int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = f.Close() }()
	rd := &reader{r: bufio.NewReaderSize(f, 1<<20)}
	for {
		e, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errTorn) {
			if !isLast {
				return n, 0, fmt.Errorf("damaged record at offset %d", rd.off)
			}
			s.log.Warn("embedded redis: cutting a torn record at the end of the log", "file", filepath.Base(path), "offset", rd.off)
			if err := f.Truncate(rd.off); err != nil {
				return n, 0, err
			}
			if err := f.Sync(); err != nil {
				return n, 0, err
			}
			break
		}
		if e.lsn <= base {
			continue
		}
		if err := check(e); err != nil {
			return n, 0, err
		}
		s.apply(e)
		n++
	}
	return n, rd.off, nil
}

// maybeCompact starts a compaction when the log has grown enough (under
// the write lock).
func (s *Store) maybeCompact() {
	grown := s.w.segBytes.Load()
	if grown < s.o.CompactMinBytes || grown < s.snapBytes.Load() || s.compacting.Load() {
		return
	}
	s.startCompaction()
}

func (s *Store) startCompaction() bool {
	if !s.compacting.CompareAndSwap(false, true) {
		return false
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer s.compacting.Store(false)
		if err := s.Compact(context.Background()); err != nil {
			s.log.Warn("embedded redis: compaction failed", "err", err)
		}
	}()
	return true
}

var errStopped = errors.New("store closing")

// Compact writes a snapshot of everything logged so far and deletes the
// log it replaces, without pausing the store: it starts a new log
// segment, replays the newest snapshot and the older segments into a
// private miniredis, and dumps that.
func (s *Store) Compact(ctx context.Context) (err error) {
	defer func() {
		if err != nil && !errors.Is(err, errStopped) {
			s.compactErr.Store(&err)
		}
	}()
	if s.w == nil {
		return nil
	}
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	dir := s.o.Dir
	upto, err := s.w.rotateSegment()
	if err != nil {
		return err
	}
	segs, snaps, err := listFiles(dir)
	if err != nil {
		return err
	}
	shadow, err := newCore(s.log)
	if err != nil {
		return err
	}
	defer shadow.m.Close()
	shadow.stop = s.stop
	var base int64
	for _, n := range snaps {
		if n <= upto {
			base = n
		}
	}
	if base > 0 || slices.Contains(snaps, 0) {
		if _, err := shadow.loadSnapshot(filepath.Join(dir, snapName(base))); err != nil {
			return err
		}
	}
	var old []string
	var oldBytes int64
	for _, first := range segs {
		if first > upto {
			continue
		}
		path := filepath.Join(dir, segName(first))
		old = append(old, path)
		_, size, err := shadow.replaySegment(path, base, false, func(e *entry) error {
			if e.lsn > upto {
				return fmt.Errorf("entry %d beyond the rotation at %d", e.lsn, upto)
			}
			select {
			case <-s.stop:
				return errStopped
			case <-ctx.Done():
				return ctx.Err()
			default:
			}
			return nil
		})
		if err != nil {
			return err
		}
		oldBytes += size
	}
	size, err := shadow.writeSnapshot(ctx, dir, upto)
	if err != nil {
		return err
	}
	for _, p := range old {
		_ = os.Remove(p)
	}
	for _, n := range snaps {
		if n < upto {
			_ = os.Remove(filepath.Join(dir, snapName(n)))
		}
	}
	_ = syncDir(dir)
	s.w.segBytes.Add(-oldBytes)
	s.snapBytes.Store(size)
	return nil
}
