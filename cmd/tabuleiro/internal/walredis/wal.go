package walredis

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// An entry is one logged unit: the write commands of one client command
// (a plain write, the effects of a script, a MULTI … EXEC block, or the
// deletions of expired keys), with the time they ran at.
type entry struct {
	lsn  int64
	at   time.Time
	tx   bool // replay inside MULTI … EXEC (the commands include them)
	cmds [][]string
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// A record on disk: 4 bytes payload length, 4 bytes CRC-32C of the
// payload, the payload: uvarint lsn, varint unix nanoseconds, one flags
// byte, uvarint number of commands, then per command uvarint number of
// arguments and per argument uvarint length and bytes.
const recordHeader = 8

// maxRecord bounds a record's payload: a larger length is a torn header.
const maxRecord = 1 << 30

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendRecord encodes e at the end of b.
func appendRecord(b []byte, e *entry) []byte {
	start := len(b)
	b = append(b, make([]byte, recordHeader)...)
	b = appendUvarint(b, uint64(e.lsn))
	b = binary.AppendVarint(b, e.at.UnixNano())
	flags := byte(0)
	if e.tx {
		flags = 1
	}
	b = append(b, flags)
	b = appendUvarint(b, uint64(len(e.cmds)))
	for _, c := range e.cmds {
		b = appendUvarint(b, uint64(len(c)))
		for _, a := range c {
			b = appendString(b, a)
		}
	}
	payload := b[start+recordHeader:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, crcTable))
	return b
}

// errTorn: the record at the end of a segment is incomplete or damaged,
// as a crash in the middle of a write leaves it.
var errTorn = errors.New("torn record")

// reader decodes records; off is the offset after the last good one.
type reader struct {
	r   *bufio.Reader
	off int64
	buf []byte
}

func (rd *reader) next() (*entry, error) {
	var h [recordHeader]byte
	if _, err := io.ReadFull(rd.r, h[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, errTorn
	}
	n := binary.LittleEndian.Uint32(h[:])
	if n == 0 || n > maxRecord {
		return nil, errTorn
	}
	if cap(rd.buf) < int(n) {
		rd.buf = make([]byte, n)
	}
	p := rd.buf[:n]
	if _, err := io.ReadFull(rd.r, p); err != nil {
		return nil, errTorn
	}
	if crc32.Checksum(p, crcTable) != binary.LittleEndian.Uint32(h[4:]) {
		return nil, errTorn
	}
	e, err := decodePayload(p)
	if err != nil {
		return nil, errTorn
	}
	rd.off += recordHeader + int64(n)
	return e, nil
}

type decoder struct {
	p   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.p)
	if n <= 0 {
		d.err = errTorn
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.p)
	if n <= 0 {
		d.err = errTorn
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.p) == 0 {
		d.err = errTorn
		return 0
	}
	b := d.p[0]
	d.p = d.p[1:]
	return b
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || uint64(len(d.p)) < n {
		d.err = errTorn
		return ""
	}
	s := string(d.p[:n])
	d.p = d.p[n:]
	return s
}

// count reads a length and checks that at least min bytes per item
// remain, so that a damaged length cannot allocate without bound.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.p)/max(min, 1)) {
		d.err = errTorn
		return 0
	}
	return int(n)
}

func decodePayload(p []byte) (*entry, error) {
	d := &decoder{p: p}
	e := &entry{lsn: int64(d.uvarint())}
	e.at = time.Unix(0, d.varint())
	e.tx = d.byte()&1 != 0
	n := d.count(1)
	e.cmds = make([][]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		na := d.count(1)
		c := make([]string, 0, na)
		for j := 0; j < na && d.err == nil; j++ {
			c = append(c, d.string())
		}
		e.cmds = append(e.cmds, c)
	}
	if d.err == nil && len(d.p) != 0 {
		d.err = errTorn
	}
	return e, d.err
}

// Files of the store's directory: log segments named by the first LSN
// they may hold, snapshots by the last LSN they include.
const (
	segPrefix  = "wal-"
	segSuffix  = ".log"
	snapPrefix = "snapshot-"
	snapSuffix = ".snap"
)

func segName(first int64) string { return fmt.Sprintf("%s%020d%s", segPrefix, first, segSuffix) }
func snapName(lsn int64) string  { return fmt.Sprintf("%s%020d%s", snapPrefix, lsn, snapSuffix) }
func parseNum(name, prefix, suffix string) (int64, bool) {
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(name, prefix), suffix), 10, 64)
	return n, err == nil && n >= 0
}

// listFiles returns the segments' first LSNs and the snapshots' LSNs of
// dir, ascending.
func listFiles(dir string) (segs, snaps []int64, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		if n, ok := parseNum(e.Name(), segPrefix, segSuffix); ok {
			segs = append(segs, n)
		} else if n, ok := parseNum(e.Name(), snapPrefix, snapSuffix); ok {
			snaps = append(snaps, n)
		}
	}
	slices.Sort(segs)
	slices.Sort(snaps)
	return segs, snaps, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// wal is the write-ahead log: entries are appended in memory by the one
// writer (under the store's write lock) and made durable by the syncer
// goroutine, which writes and fsyncs everything appended since its last
// round in one go (group commit). Replies wait for synced to reach the
// LSN they depend on.
type wal struct {
	dir string

	// reserved is the LSN of the write being executed, or of the last
	// one appended: output produced now depends on it.
	reserved atomic.Int64

	mu       sync.Mutex
	wake     *sync.Cond
	buf      []byte // encoded entries not yet written
	spare    []byte
	appended int64 // last LSN appended (an entry without commands writes no bytes)
	synced   int64 // last LSN durable
	syncedCh chan struct{}
	err      error // the first write or fsync failure: the log accepts nothing more
	closing  bool
	rotate   chan int64 // a compaction asks for a new segment; answered with the last LSN of the old ones

	f        *os.File     // the segment being appended to; owned by the syncer
	segBytes atomic.Int64 // bytes in segments since the last snapshot
	done     chan struct{}
	syncs    atomic.Int64 // fsyncs done (for tests and benchmarks)
}

// openWAL starts a log whose next LSN is last+1, appended to the segment
// tail (whose torn end recovery has cut), or to a new segment.
func openWAL(dir string, last int64, oldBytes int64, tail string) (*wal, error) {
	w := &wal{dir: dir, appended: last, synced: last, syncedCh: make(chan struct{}), done: make(chan struct{})}
	w.wake = sync.NewCond(&w.mu)
	w.reserved.Store(last)
	w.segBytes.Store(oldBytes)
	var f *os.File
	var err error
	if tail != "" {
		f, err = os.OpenFile(tail, os.O_WRONLY|os.O_APPEND, 0o600)
	} else {
		f, err = w.newSegment(last + 1)
	}
	if err != nil {
		return nil, fmt.Errorf("write-ahead log: %w", err)
	}
	w.f = f
	go w.syncer()
	return w, nil
}

func (w *wal) newSegment(first int64) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(w.dir, segName(first)), os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("write-ahead log: %w", err)
	}
	if err := syncDir(w.dir); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("write-ahead log: %w", err)
	}
	return f, nil
}

// reserve returns the LSN of the next entry; the caller (holding the
// store's write lock) appends it with append, commands or not.
func (w *wal) reserve() int64 {
	w.mu.Lock()
	n := w.appended + 1
	w.mu.Unlock()
	w.reserved.Store(n)
	return n
}

// append queues e (e.lsn from reserve) for the syncer.
func (w *wal) append(e *entry) {
	w.mu.Lock()
	if len(e.cmds) > 0 && w.err == nil {
		w.buf = appendRecord(w.buf, e)
	}
	w.appended = e.lsn
	w.wake.Signal()
	w.mu.Unlock()
}

func (w *wal) syncer() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for w.appended == w.synced && w.rotate == nil && !w.closing {
			w.wake.Wait()
		}
		if w.err != nil || (w.closing && w.appended == w.synced) {
			w.mu.Unlock()
			_ = w.f.Close()
			return
		}
		batch, upto, rot := w.buf, w.appended, w.rotate
		w.buf, w.spare, w.rotate = w.spare[:0], nil, nil
		w.mu.Unlock()

		var err error
		if len(batch) > 0 {
			if _, err = w.f.Write(batch); err == nil {
				err = w.f.Sync()
				w.syncs.Add(1)
			}
			w.segBytes.Add(int64(len(batch)))
		}
		if rot != nil && err == nil {
			var f *os.File
			if f, err = w.newSegment(upto + 1); err == nil {
				_ = w.f.Close()
				w.f = f
				rot <- upto
			}
		}
		w.mu.Lock()
		w.spare = batch[:0]
		if err != nil {
			w.err = fmt.Errorf("write-ahead log: %w", err)
			if rot != nil {
				close(rot)
			}
		} else {
			w.synced = upto
		}
		close(w.syncedCh)
		w.syncedCh = make(chan struct{})
		w.mu.Unlock()
	}
}

// wait blocks until the entry lsn is durable, or the log has failed.
func (w *wal) wait(lsn int64) error {
	for {
		w.mu.Lock()
		if w.synced >= lsn {
			w.mu.Unlock()
			return nil
		}
		if w.err != nil {
			err := w.err
			w.mu.Unlock()
			return err
		}
		ch := w.syncedCh
		w.mu.Unlock()
		<-ch
	}
}

// failed returns the log's failure, if any.
func (w *wal) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// rotateSegment makes the syncer start a new segment after what is
// appended now, and returns the last LSN of the old segments.
func (w *wal) rotateSegment() (int64, error) {
	ch := make(chan int64, 1)
	w.mu.Lock()
	if w.err != nil || w.closing || w.rotate != nil {
		err := w.err
		w.mu.Unlock()
		if err == nil {
			err = errors.New("write-ahead log closing or rotating")
		}
		return 0, err
	}
	w.rotate = ch
	w.wake.Signal()
	w.mu.Unlock()
	upto, ok := <-ch
	if !ok {
		return 0, w.failed()
	}
	return upto, nil
}

// close syncs what is appended and stops the syncer.
func (w *wal) close() error {
	w.mu.Lock()
	w.closing = true
	w.wake.Signal()
	w.mu.Unlock()
	<-w.done
	return w.failed()
}
