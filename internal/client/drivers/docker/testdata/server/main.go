// Command server is the docker driver tests' image: a static HTTP server,
// or with "exit CODE WORDS..." a program that prints and exits.
package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "exit" {
		fmt.Println(strings.Join(os.Args[3:], " "))
		fmt.Fprintln(os.Stderr, "to stderr")
		code, _ := strconv.Atoi(os.Args[2])
		os.Exit(code)
	}
	if len(os.Args) > 2 && os.Args[1] == "cat" {
		b, err := os.ReadFile(os.Args[2])
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Stdout.Write(b)
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "ls" {
		list(os.Args[2])
		return
	}
	// As PID 1 of its container it would ignore SIGTERM without a handler.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() { <-sigs; os.Exit(0) }()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", os.Getenv("NOMAD_TASK_NAME"))
	})
	fmt.Println("listening on :8080")
	if err := http.ListenAndServe(":8080", nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// list prints the names in dir, one a line, or the error.
func list(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
}
