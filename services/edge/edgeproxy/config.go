package edgeproxy

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"time"

	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/pkg/platform/grpcserve"
)

// Settings are the edge command's EDGE_* variables.
type Settings struct {
	Addr            string        // EDGE_ADDR, default ":8080"
	LobbyAddr       string        // EDGE_LOBBY_ADDR, default "lobby:8080"
	MatchAddr       string        // EDGE_MATCH_ADDR, default "match:8080"
	MaxInFlight     int           // EDGE_MAX_IN_FLIGHT, default DefaultMaxInFlight
	ShutdownTimeout time.Duration // EDGE_SHUTDOWN_TIMEOUT, default 25s
	LogLevel        slog.Level    // EDGE_LOG_LEVEL, default INFO
	// EDGE_TLS_CERT_FILE and EDGE_TLS_KEY_FILE serve clients over TLS;
	// EDGE_TLS_CA_FILE makes the edge call the backends over TLS trusting it.
	TLSCertFile, TLSKeyFile, TLSCAFile string
}

// LoadSettings reads the EDGE_* variables, reporting every problem at once.
func LoadSettings(getenv func(string) string) (Settings, error) {
	env := envconfig.New("EDGE_", getenv)
	s := Settings{
		Addr:            env.String("ADDR", ":8080"),
		LobbyAddr:       env.String("LOBBY_ADDR", "lobby:8080"),
		MatchAddr:       env.String("MATCH_ADDR", "match:8080"),
		MaxInFlight:     env.IntRange("MAX_IN_FLIGHT", DefaultMaxInFlight, 1, 1_000_000),
		ShutdownTimeout: env.Duration("SHUTDOWN_TIMEOUT", 25*time.Second),
		LogLevel:        env.LogLevel("LOG_LEVEL", slog.LevelInfo),
		TLSCertFile:     env.String("TLS_CERT_FILE", ""),
		TLSKeyFile:      env.String("TLS_KEY_FILE", ""),
		TLSCAFile:       env.String("TLS_CA_FILE", ""),
	}
	if (s.TLSCertFile == "") != (s.TLSKeyFile == "") {
		env.Errorf("TLS_KEY_FILE", "set it together with %s, or neither", env.Name("TLS_CERT_FILE"))
	}
	return s, env.Err()
}

// ServerTLS is the clients' TLS (nil: cleartext).
func (s Settings) ServerTLS() (*tls.Config, error) {
	return grpcserve.ServerTLS(s.TLSCertFile, s.TLSKeyFile)
}

// BackendTLS is the backends' TLS (nil: cleartext h2c).
func (s Settings) BackendTLS() (*tls.Config, error) {
	if s.TLSCAFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(s.TLSCAFile)
	if err != nil {
		return nil, fmt.Errorf("read CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s holds no PEM certificate", s.TLSCAFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
