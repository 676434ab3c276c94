package load

import (
	"context"
	"fmt"
	"io"
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

	cpu0      map[string]time.Duration
	self0     time.Duration
	redisCPU0 time.Duration
	cmds0     map[string]int64
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
		if m.redisCPU0, m.cmds0, err = redisStats(ctx, m.rdb); err != nil {
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

// Write prints the processor time per ply used since NewMeter by each
// kind of process found, Redis, and this process, and Redis's commands
// per ply.
func (m *Meter) Write(ctx context.Context, w io.Writer, plies int64) {
	if plies <= 0 {
		return
	}
	per := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000/float64(plies), 'f', 3, 64) + " ms"
	}
	cpu := m.sample()
	var parts []string
	var cluster time.Duration
	for _, kind := range slices.Sorted(func(yield func(string) bool) {
		for k := range m.kinds {
			if !yield(k) {
				return
			}
		}
	}) {
		d := cpu[kind] - m.cpu0[kind]
		cluster += d
		parts = append(parts, fmt.Sprintf("%s %s (%d)", kind, per(d), len(m.kinds[kind])))
	}
	var cmds map[string]int64
	if m.rdb != nil {
		rc, c, err := redisStats(ctx, m.rdb)
		if err == nil {
			cluster += rc - m.redisCPU0
			parts = append(parts, "redis "+per(rc-m.redisCPU0))
			cmds = c
		}
	}
	if len(parts) == 0 {
		fmt.Fprintln(w, "CPU per ply: no server process found on this machine (and no --redis)")
	} else {
		fmt.Fprintf(w, "CPU per ply: %s; all these %s\n", strings.Join(parts, ", "), per(cluster))
	}
	fmt.Fprintf(w, "CPU per ply of the load generator: %s\n", per(ProcessCPU("self")-m.self0))
	if cmds != nil {
		var cs []string
		var total int64
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range cmds {
				if !yield(k) {
					return
				}
			}
		}) {
			d := cmds[name] - m.cmds0[name]
			total += d
			if float64(d) >= 0.01*float64(plies) && name != "info" {
				cs = append(cs, fmt.Sprintf("%s %.2f", name, float64(d)/float64(plies)))
			}
		}
		fmt.Fprintf(w, "Redis commands per ply: %.2f (%s)\n", float64(total)/float64(plies), strings.Join(cs, ", "))
	}
}

// redisStats returns Redis's processor time (INFO cpu: used_cpu_user and
// used_cpu_sys) and its calls by command (INFO commandstats): on a
// cluster, summed over its primaries.
func redisStats(ctx context.Context, rdb redis.UniversalClient) (time.Duration, map[string]int64, error) {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		var cpu time.Duration
		cmds := map[string]int64{}
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			t, cs, err := redisStats(ctx, m)
			mu.Lock()
			defer mu.Unlock()
			cpu += t
			for k, n := range cs {
				cmds[k] += n
			}
			return err
		})
		return cpu, cmds, err
	}
	v, err := rdb.Info(ctx, "cpu", "commandstats").Result()
	if err != nil {
		return 0, nil, err
	}
	var cpu float64
	cmds := map[string]int64{}
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		if k, val, ok := strings.Cut(line, ":"); ok && (k == "used_cpu_user" || k == "used_cpu_sys") {
			f, _ := strconv.ParseFloat(val, 64)
			cpu += f
			continue
		}
		// cmdstat_get:calls=12,usec=...
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		cmds[name], _ = strconv.ParseInt(n, 10, 64)
	}
	return time.Duration(cpu * float64(time.Second)), cmds, nil
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
