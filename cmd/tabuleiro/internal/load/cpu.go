package load

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/redisconn"
)

// Processor time per ply, by kind of process: the load generator finds
// the processes that listen on the addresses it is given (lobby, match,
// bot) on this machine, from /proc, and reads their processor time before
// and after the run; Redis reports its own (INFO cpu, so it may be on
// another machine) and its command counts (INFO commandstats). A server
// elsewhere is left out of the figures; `tabuleiro serve` is one process
// that serves both the lobby and the match addresses ("server").

// Meter measures the processor time of a deployment's processes.
type Meter struct {
	kinds map[string][]int // kind -> pids
	rdb   redis.UniversalClient

	cpu0   map[string]time.Duration
	self0  time.Duration
	redis0 map[string]redisNode // by primary's address ("" for one server)
}

// NewMeter finds the local processes listening on each kind's addresses
// (kinds in order: a process found under an earlier kind and a later one
// is named by both, joined with "+"), and Redis at redisURL when set.
func NewMeter(ctx context.Context, kinds [][2]string, redisURL string) (*Meter, error) {
	m := &Meter{kinds: map[string][]int{}}
	listeners := listeningPids()
	byPid := map[int]string{}
	var order []int
	for _, k := range kinds {
		for _, addr := range splitList(k[1]) {
			_, port, err := net.SplitHostPort(addr)
			if err != nil {
				continue
			}
			p, _ := strconv.Atoi(port)
			pid, ok := listeners[p]
			if !ok || !isLocal(addr) {
				continue
			}
			switch prev, seen := byPid[pid]; {
			case !seen:
				byPid[pid] = k[0]
				order = append(order, pid)
			case !slices.Contains(strings.Split(prev, "+"), k[0]):
				byPid[pid] = prev + "+" + k[0]
			}
		}
	}
	for _, pid := range order {
		m.kinds[byPid[pid]] = append(m.kinds[byPid[pid]], pid)
	}
	if redisURL != "" {
		rdb, err := redisconn.Open(redisURL)
		if err != nil {
			return nil, err
		}
		m.rdb = rdb
	}
	m.cpu0, m.self0 = m.sample(), ProcessCPU("self")
	if m.rdb != nil {
		var err error
		if m.redis0, err = redisStats(ctx, m.rdb); err != nil {
			_ = m.rdb.Close()
			return nil, fmt.Errorf("redis stats: %w", err)
		}
	}
	return m, nil
}

// Close closes the Redis client.
func (m *Meter) Close() {
	if m.rdb != nil {
		_ = m.rdb.Close()
	}
}

func (m *Meter) sample() map[string]time.Duration {
	out := map[string]time.Duration{}
	for kind, pids := range m.kinds {
		for _, pid := range pids {
			out[kind] += ProcessCPU(strconv.Itoa(pid))
		}
	}
	return out
}

// redisNode is one Redis server's counters.
type redisNode struct {
	cpu  time.Duration    // INFO cpu: used_cpu_user + used_cpu_sys
	cmds map[string]int64 // INFO commandstats: calls by command
	errs map[string]int64 // INFO errorstats: replies by error prefix
	keys int64            // DBSIZE
	// matchKeys is the keys of matches (…m:{id}…), counted on a
	// cluster's primaries only (a SCAN of each).
	matchKeys int64
}

// redisStats reads the counters of rdb's server, or on a cluster of each
// of its primaries, by address ("" for one server).
func redisStats(ctx context.Context, rdb redis.UniversalClient) (map[string]redisNode, error) {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		out := map[string]redisNode{}
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			n, err := nodeStats(ctx, m)
			if err == nil {
				iter := m.Scan(ctx, 0, "*m:{*", 1000).Iterator()
				for iter.Next(ctx) {
					n.matchKeys++
				}
				err = iter.Err()
			}
			mu.Lock()
			defer mu.Unlock()
			out[m.Options().Addr] = n
			return err
		})
		return out, err
	}
	n, err := nodeStats(ctx, rdb)
	return map[string]redisNode{"": n}, err
}

func nodeStats(ctx context.Context, rdb redis.Cmdable) (redisNode, error) {
	n := redisNode{cmds: map[string]int64{}, errs: map[string]int64{}}
	v, err := rdb.Info(ctx, "cpu", "commandstats", "errorstats").Result()
	if err != nil {
		return n, err
	}
	var cpu float64
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		if k, val, ok := strings.Cut(line, ":"); ok && (k == "used_cpu_user" || k == "used_cpu_sys") {
			f, _ := strconv.ParseFloat(val, 64)
			cpu += f
			continue
		}
		// cmdstat_get:calls=12,usec=... and errorstat_CROSSSLOT:count=3
		if name, rest, ok := strings.Cut(strings.TrimPrefix(line, "errorstat_"), ":count="); ok {
			n.errs[name], _ = strconv.ParseInt(rest, 10, 64)
			continue
		}
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		c, _, _ := strings.Cut(rest, ",")
		n.cmds[name], _ = strconv.ParseInt(c, 10, 64)
	}
	n.cpu = time.Duration(cpu * float64(time.Second))
	if n.keys, err = rdb.DBSize(ctx).Result(); err != nil {
		return n, err
	}
	return n, nil
}

// ProcessCPU returns the processor time (user and system) used so far by
// the process pid (a process id, or "self" for this one): utime+stime,
// fields 14 and 15 of /proc/PID/stat, in ticks of 1/100 s on Linux; 0 when
// it cannot read them.
func ProcessCPU(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	// The command name (field 2) is in parentheses and may hold spaces.
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// listeningPids maps each TCP port listened on by a process this user may
// inspect to its pid, from /proc/net/tcp{,6} and the processes' sockets.
func listeningPids() map[int]int {
	inodes := map[string]int{} // socket inode -> port
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 || fs[3] != "0A" { // LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fs[1], ":")
			if !ok {
				continue
			}
			port, err := strconv.ParseInt(hexPort, 16, 32)
			if err == nil {
				inodes[fs[9]] = int(port)
			}
		}
	}
	out := map[int]int{}
	if len(inodes) == 0 {
		return out
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, _ := filepath.Glob("/proc/" + p.Name() + "/fd/*")
		for _, fd := range fds {
			l, err := os.Readlink(fd)
			if err != nil || !strings.HasPrefix(l, "socket:[") {
				continue
			}
			if port, ok := inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")]; ok {
				out[port] = pid
			}
		}
	}
	return out
}

// isLocal reports whether addr's host is this machine (loopback, empty,
// or one of its interface addresses).
func isLocal(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "" || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

func splitList(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
