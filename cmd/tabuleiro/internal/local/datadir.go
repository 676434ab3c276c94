package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"tabuleiro.dev/pkg/platform/auth"
)

// DataDir returns where the one-process mode keeps its state when no
// directory is given: $XDG_DATA_HOME/tabuleiro, else ~/.local/share/tabuleiro
// on Linux and the BSDs (the XDG default), and the user configuration
// directory (~/Library/Application Support, %AppData%) elsewhere. getenv
// reads the environment.
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "tabuleiro"), nil
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "tabuleiro"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_DATA_HOME nor HOME is set: pass --data-dir")
	}
	return filepath.Join(home, ".local", "share", "tabuleiro"), nil
}

// tokenKey returns the token signing key kept in dir, making one the first
// time, so that tokens (and so identities) stay valid across runs.
func tokenKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, "token.key")
	b, err := os.ReadFile(path)
	if err == nil {
		return auth.ParseKey(strings.TrimSpace(string(b)))
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read token key: %w", err)
	}
	key, err := auth.GenerateKey()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(auth.EncodeKey(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("keep token key: %w", err)
	}
	return key, nil
}

// privateFiles makes the results database private to the user, as
// token.key is: it creates paths[0] 0600 when missing (SQLite gives its
// -wal and -shm files the database's mode) and takes the group's and
// others' bits off any of paths that an older version left readable.
func privateFiles(paths ...string) error {
	f, err := os.OpenFile(paths[0], os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("results database: %w", err)
	}
	_ = f.Close()
	for _, p := range paths {
		info, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("results database: %w", err)
		}
		if m := info.Mode().Perm(); m&0o077 != 0 {
			if err := os.Chmod(p, m&^0o077); err != nil {
				return fmt.Errorf("results database: %w", err)
			}
		}
	}
	return nil
}
