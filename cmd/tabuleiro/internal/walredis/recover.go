package walredis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2/server"
)

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
