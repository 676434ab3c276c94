package telemetry_test

import (
	"log/slog"
	"testing"

	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/pkg/platform/telemetry"
)

func TestSetup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		env         map[string]string
		wantTraces  bool
		wantMetrics bool
		wantErr     bool
	}{
		{name: "off without an endpoint", env: map[string]string{}},
		{name: "off when disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}},
		{name: "traces only", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4317"}, wantTraces: true},
		{name: "metrics exporter none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_METRICS_EXPORTER": "none"}, wantTraces: true},
		{name: "http protocol unsupported", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tel, err := telemetry.Setup(t.Context(), "match", envconfig.Map(tt.env), slog.New(slog.DiscardHandler))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Setup error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if tel.TracesEnabled != tt.wantTraces || tel.MetricsEnabled != tt.wantMetrics {
				t.Errorf("traces %v metrics %v, want %v %v", tel.TracesEnabled, tel.MetricsEnabled, tt.wantTraces, tt.wantMetrics)
			}
			if tel.ServerHandler() == nil || tel.ClientHandler() == nil {
				t.Error("no stats handlers")
			}
			if err := tel.Shutdown(t.Context()); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		})
	}
}
