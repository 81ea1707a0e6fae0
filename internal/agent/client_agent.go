package agent

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/rpcclient"
	"github.com/drover-project/drover/internal/structs"
)

// defaultRPCPort is added to server addresses given without a port.
const defaultRPCPort = 4647

// startClient runs the client agent: it reaches the servers over the
// internal RPC (this agent's own server first when it runs one).
func (a *Agent) startClient() error {
	servers, err := a.clientServers()
	if err != nil {
		return err
	}
	rpc, err := rpcclient.New(servers)
	if err != nil {
		return err
	}
	if a.tls.rpcClient != nil {
		rpc.UseTLS(a.tls.rpcClient)
	}
	dataDir, err := a.clientDataDir()
	if err != nil {
		return err
	}
	c, err := client.New(a.clientConfig(dataDir, rpc))
	if err != nil {
		rpc.Close()
		return fmt.Errorf("agent: start client: %w", err)
	}
	a.clientRPC = rpc
	a.client.Store(c)
	return nil
}

// clientServers lists the servers' RPC addresses: client.servers, else
// this agent's own server.
func (a *Agent) clientServers() ([]string, error) {
	var out []string
	for _, s := range a.config.Client.Servers {
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(s, strconv.Itoa(defaultRPCPort))
		}
		out = append(out, s)
	}
	if len(out) == 0 && a.server != nil {
		out = []string{a.RPCAddr()}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("agent: client.servers is empty and this agent runs no server")
	}
	return out, nil
}

// clientDataDir is data_dir, or in -dev a temporary directory removed on
// shutdown (dev state is not meant to survive).
func (a *Agent) clientDataDir() (string, error) {
	if a.config.DataDir != "" {
		return a.config.DataDir, nil
	}
	if !a.config.DevMode {
		return "", fmt.Errorf("agent: the client needs data_dir")
	}
	dir, err := os.MkdirTemp("", "drover-dev-")
	if err != nil {
		return "", err
	}
	a.tempDataDir = dir
	return dir, nil
}

func (a *Agent) clientConfig(dataDir string, servers client.Servers) *client.Config {
	c := a.config
	plugins := map[string]map[string]any{}
	for _, p := range c.Plugins {
		plugins[p.Name] = p.Config
	}
	cc := &client.Config{
		DataDir: dataDir, StateDir: c.Client.StateDir, AllocDir: c.Client.AllocDir,
		Name: c.Name, Datacenter: c.Datacenter, Region: c.Region,
		NodeClass: c.Client.NodeClass, NodePool: c.Client.NodePool,
		HTTPAddr: c.AdvertiseHTTPAddr(a.HTTPAddr()), Meta: c.Client.Meta, Options: c.Client.Options, Plugins: plugins,
		Reserved: structs.NodeReservedResources{
			CpuShares: int64(c.Client.Reserved.CPU), MemoryMB: int64(c.Client.Reserved.MemoryMB),
			DiskMB: int64(c.Client.Reserved.DiskMB), ReservedPorts: c.Client.Reserved.ReservedPorts,
		},
		CPUTotalCompute: c.Client.CPUTotalCompute, MemoryTotalMB: c.Client.MemoryTotalMB,
		NetworkInterface: c.Client.NetworkInterface, DevMode: c.DevMode,
		CNIPath: splitCNIPath(c.Client.CNIPath), CNIConfigDir: c.Client.CNIConfigDir, BridgeNetworkSubnet: c.Client.BridgeNetworkSubnet,
		HTTPTLS: a.config.TLS.HTTP, HTTPClientTLS: a.tls.httpClient, NodeRegistrationToken: c.Client.NodeRegistrationToken,
		Logger: a.log, Servers: servers, Version: Version, HostVolumes: hostVolumes(c.Client.HostVolumes),
		HostNetworks:   hostNetworks(c.Client.HostNetworks),
		MinDynamicPort: c.Client.MinDynamicPort, MaxDynamicPort: c.Client.MaxDynamicPort,
		MaxKillTimeout: c.Client.MaxKillTimeout,
		GC: client.GCConfig{Interval: c.Client.GC.Interval, MaxAllocs: c.Client.GC.MaxAllocs,
			DiskUsageThreshold: c.Client.GC.DiskUsageThreshold, InodeUsageThreshold: c.Client.GC.InodeUsageThreshold,
			ParallelDestroys: c.Client.GC.ParallelDestroys},
	}
	if a.httpHandler != nil {
		cc.TaskAPI = taskAPIHandler{a.httpHandler}
	}
	if a.server != nil {
		// An agent running both roles just works, ACLs or not: its server
		// vouches for its own client (see auth.Service.AgentNodeCredential).
		cc.AgentNodeCredential = a.server.Auth().AgentNodeCredential
	}
	return cc
}

// stopClient stops the client. In -dev its allocs are stopped (the
// temporary data dir is removed by Shutdown, beside the server's stop);
// otherwise tasks keep running for the next client start to re-attach to.
func (a *Agent) stopClient() error {
	c := a.client.Swap(nil)
	if c == nil {
		return nil
	}
	var err error
	if a.config.DevMode {
		err = c.Destroy()
	} else {
		err = c.Shutdown()
	}
	a.clientRPC.Close()
	return err
}

// removeTempDataDir removes a -dev client's temporary data dir in the
// background, one goroutine per alloc dir up to tempDirRemovers: with
// tens of thousands of allocs it holds hundreds of thousands of files,
// whose unlinking should not add up on the shutdown path. The channel
// closes when it is gone.
func (a *Agent) removeTempDataDir() <-chan struct{} {
	done := make(chan struct{})
	if a.tempDataDir == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		allocs := filepath.Join(a.tempDataDir, "alloc")
		entries, _ := os.ReadDir(allocs)
		sem := make(chan struct{}, tempDirRemovers)
		var wg sync.WaitGroup
		for _, e := range entries {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				_ = os.RemoveAll(filepath.Join(allocs, e.Name()))
			})
		}
		wg.Wait()
		_ = os.RemoveAll(a.tempDataDir)
	}()
	return done
}

// tempDirRemovers bounds the goroutines unlinking a -dev data dir.
const tempDirRemovers = 8

// Client returns the agent's client, or nil.
func (a *Agent) Client() *client.Client { return a.client.Load() }

// hostVolumes converts the client's host_volume blocks.
func hostVolumes(in []config.HostVolume) map[string]*structs.ClientHostVolumeConfig {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]*structs.ClientHostVolumeConfig, len(in))
	for _, v := range in {
		out[v.Name] = &structs.ClientHostVolumeConfig{Name: v.Name, Path: v.Path, ReadOnly: v.ReadOnly}
	}
	return out
}

// hostNetworks converts the host_network blocks into the node's
// HostNetworks, by name.
func hostNetworks(in []config.HostNetwork) map[string]*structs.ClientHostNetworkConfig {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]*structs.ClientHostNetworkConfig, len(in))
	for _, hn := range in {
		out[hn.Name] = &structs.ClientHostNetworkConfig{Name: hn.Name, CIDR: hn.CIDR, Interface: hn.Interface, ReservedPorts: hn.ReservedPorts}
	}
	return out
}

// splitCNIPath splits a cni_path ("dir:dir"); empty: the client's default.
func splitCNIPath(p string) []string {
	var out []string
	for _, d := range strings.Split(p, ":") {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
