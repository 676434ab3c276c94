package rpc

import (
	"google.golang.org/grpc/codes"

	"tabuleiro.dev/pkg/platform/rpcerr"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
)

// toStatus is the lobby's one mapping from domain errors to gRPC codes.
var toStatus = rpcerr.Mapper{
	{Err: lobby.ErrInvalid, Code: codes.InvalidArgument},
	{Err: lobby.ErrNotFound, Code: codes.NotFound},
	{Err: lobby.ErrWrongPassword, Code: codes.PermissionDenied, Message: "wrong room password"},
	{Err: lobby.ErrForbidden, Code: codes.PermissionDenied},
	{Err: lobby.ErrTooManyAttempts, Code: codes.ResourceExhausted},
	{Err: lobby.ErrPrecondition, Code: codes.FailedPrecondition},
	{Err: lobby.ErrReplaced, Code: codes.Aborted},
	{Err: lobby.ErrUnauthenticated, Code: codes.Unauthenticated, Message: "missing, forged or expired token"},
	{Err: matchmaking.ErrExpired, Code: codes.Aborted, Message: "ticket expired; queue again"},
	{Err: matchmaking.ErrMatchFailed, Code: codes.Unavailable, Message: "the match could not be created; queue again"},
}.Status
