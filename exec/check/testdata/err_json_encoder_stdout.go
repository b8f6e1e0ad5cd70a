package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type summary struct {
	Total int `json:"total"`
}

func main() {
	s := summary{Total: 3}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		fmt.Println(err)
	}
	json.NewEncoder(os.Stderr).Encode(s.Total)
}

// Error:
// snippet.go:15:25: os.Stdout is not available in snippets
// 	hint: json.NewEncoder takes an io.Writer: encode with b, err := json.MarshalIndent(s, "", "  ") instead, then fmt.Println(string(b))
