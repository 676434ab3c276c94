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
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"

	"tabuleiro.dev/cmd/tabuleiro/internal/dirlock"
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
	lock *os.File // Dir's lock (dirlock.Lock), held until Close
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
		// One log has one writer: two processes appending to it would
		// each number its entries their own way, and the next start would
		// refuse the log.
		if s.lock, err = dirlock.Lock(o.Dir); err != nil {
			return nil, fmt.Errorf("embedded redis: %w", err)
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
