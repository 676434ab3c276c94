module tabuleiro.dev/cmd/tabuleiro

go 1.26.0

require (
	github.com/spf13/cobra v1.10.2
	google.golang.org/grpc v1.85.0
	tabuleiro.dev/pkg/engine v0.0.0
	tabuleiro.dev/pkg/gen v0.0.0
	tabuleiro.dev/pkg/platform v0.0.0
	tabuleiro.dev/services/bot v0.0.0
)

require (
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260928230214-8a89bd6388cc // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace tabuleiro.dev/pkg/engine => ../../pkg/engine

replace tabuleiro.dev/services/bot => ../../services/bot

replace tabuleiro.dev/pkg/gen => ../../pkg/gen

replace tabuleiro.dev/pkg/platform => ../../pkg/platform
