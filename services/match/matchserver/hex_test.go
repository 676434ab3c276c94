package matchserver_test

import "encoding/hex"

func hexDecode(s string, dst []byte) (int, error) { return hex.Decode(dst, []byte(s)) }
