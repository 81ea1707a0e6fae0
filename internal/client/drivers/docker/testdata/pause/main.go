// Command pause is the tests' infra_image program (the machine is
// offline, so Nomad's registry.k8s.io/pause cannot be pulled): it holds
// its container's namespaces and exits on SIGTERM or SIGINT.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	<-sigs
}
