package local

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
)

// ErrNoPostgres: no database URL was given and no PostgreSQL installation
// was found to run a private server from.
var ErrNoPostgres = errors.New("no PostgreSQL found: install it (apt-get install postgresql, brew install postgresql) or pass --database-url")

// privatePostgres is a PostgreSQL server of the local installation, run by
// this process on a data directory of its own, listening on loopback only.
// The services' SQL is PostgreSQL's, so the one-process mode runs a real
// PostgreSQL rather than an imitation.
type privatePostgres struct {
	bin    string // the directory of pg_ctl and initdb
	dir    string // the cluster's data directory
	port   int
	runAs  string // the user the server runs as ("" for this process's user)
	ours   bool   // started by this process, so stopped by it
	logDir string
}

// findPostgres returns the directory of the newest installed pg_ctl.
func findPostgres() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), nil
	}
	var dirs []string
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin", "/usr/local/opt/postgresql*/bin", "/opt/homebrew/opt/postgresql*/bin"} {
		m, _ := filepath.Glob(pattern)
		dirs = append(dirs, m...)
	}
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(a) - versionOf(b) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_ctl")); err == nil {
			return dirs[i], nil
		}
	}
	return "", ErrNoPostgres
}

func versionOf(dir string) int {
	n, _ := strconv.Atoi(strings.TrimFunc(filepath.Base(filepath.Dir(dir)), func(r rune) bool { return r < '0' || r > '9' }))
	return n
}

// startPostgres starts (or joins, when another tabuleiro process already
// runs it) the private server on dir, creating the cluster and the
// database "tabuleiro" the first time. PostgreSQL refuses to run as root:
// under root the cluster belongs to the "postgres" user.
func startPostgres(ctx context.Context, dir string) (*privatePostgres, error) {
	bin, err := findPostgres()
	if err != nil {
		return nil, err
	}
	p := &privatePostgres{bin: bin, dir: dir}
	if os.Geteuid() == 0 {
		p.runAs = "postgres"
		if _, err := user.Lookup(p.runAs); err != nil {
			return nil, fmt.Errorf("postgres refuses root and there is no postgres user: %w", err)
		}
	}
	if err := p.prepare(ctx); err != nil {
		return nil, err
	}
	if port, ok := p.running(ctx); ok {
		p.port = port
	} else if err := p.start(ctx); err != nil {
		return nil, err
	}
	if err := p.createDatabase(ctx); err != nil {
		_ = p.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return p, nil
}

func (p *privatePostgres) cmd(ctx context.Context, name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if p.runAs != "" {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", p.runAs, "--", path}, args...)...)
	}
	return exec.CommandContext(ctx, path, args...)
}

func (p *privatePostgres) prepare(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(p.dir, "PG_VERSION")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.dir), 0o755); err != nil { // the server's user must enter it
		return fmt.Errorf("postgres data directory: %w", err)
	}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return fmt.Errorf("postgres data directory: %w", err)
	}
	if p.runAs != "" {
		if out, err := exec.CommandContext(ctx, "chown", p.runAs+":", p.dir).CombinedOutput(); err != nil {
			return fmt.Errorf("chown %s: %v: %s", p.dir, err, out)
		}
	}
	out, err := p.cmd(ctx, "initdb", "-D", p.dir, "-A", "trust", "-U", "tabuleiro", "-E", "UTF8", "--no-sync").CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb %s: %v: %s", p.dir, err, lastLines(out))
	}
	return nil
}

// running reports whether a server already runs on the cluster, and its
// port (line 4 of postmaster.pid).
func (p *privatePostgres) running(ctx context.Context) (int, bool) {
	if p.cmd(ctx, "pg_ctl", "-D", p.dir, "status").Run() != nil {
		return 0, false
	}
	f, err := os.Open(filepath.Join(p.dir, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		if i == 4 {
			port, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
			return port, err == nil
		}
	}
	return 0, false
}

func (p *privatePostgres) start(ctx context.Context) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c synchronous_commit=off", p.port, p.dir)
	out, err := p.cmd(ctx, "pg_ctl", "-D", p.dir, "-l", filepath.Join(p.dir, "server.log"), "-w", "-t", "60", "start", "-o", opts).CombinedOutput()
	if err != nil {
		return fmt.Errorf("start postgres: %v: %s (see %s)", err, lastLines(out), filepath.Join(p.dir, "server.log"))
	}
	p.ours = true
	return nil
}

func (p *privatePostgres) createDatabase(ctx context.Context) error {
	db, err := sql.Open("pgx", p.url("postgres"))
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'tabuleiro')").Scan(&exists); err != nil {
		return fmt.Errorf("private postgres: %w", err)
	}
	if !exists {
		if _, err := db.ExecContext(ctx, "CREATE DATABASE tabuleiro"); err != nil {
			return fmt.Errorf("create database: %w", err)
		}
	}
	return nil
}

func (p *privatePostgres) url(db string) string {
	return fmt.Sprintf("postgres://tabuleiro@127.0.0.1:%d/%s?sslmode=disable", p.port, db)
}

// URL is the database URL of the "tabuleiro" database.
func (p *privatePostgres) URL() string { return p.url("tabuleiro") }

// Close stops the server if this process started it.
func (p *privatePostgres) Close(ctx context.Context) error {
	if !p.ours {
		return nil
	}
	out, err := p.cmd(ctx, "pg_ctl", "-D", p.dir, "-w", "-m", "fast", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("stop postgres: %v: %s", err, lastLines(out))
	}
	return nil
}

func lastLines(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], " / ")
}
