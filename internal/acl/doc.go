// Package acl is Nomad's ACL policy language and the ACL object compiled
// from a token's policies. It imports nothing from the rest of Drover, so
// the server, the agent and tests share one implementation.
//
// Parse reads Nomad's policy HCL or JSON with HCL1 (hashicorp/hcl v1,
// the version Nomad pins), so every syntax Nomad accepts parses: blocks,
// `key = { }` objects, unquoted and nested labels, keys in any case, JSON
// objects or arrays (hcl1.go). The rules: namespace "GLOB" { policy
// capabilities variables { path "GLOB" { capabilities } } }, node_pool
// "GLOB" { policy capabilities } (read, write, delete; node_pool.go),
// node, agent, operator, quota, plugin, host_volume "GLOB". Unlike
// Nomad's decoder, an unknown key, a repeated attribute or a repeated
// coarse block is refused by name. Every error is line:col: what. New(policies) merges them into an immutable *ACL (deny wins, grants
// add up; an exact namespace rule beats globs, else the glob leaving the
// fewest characters to its *s, ties by name); ManagementACL allows
// everything. Methods: AllowNamespaceOperation(ns, cap), AllowNamespace,
// AllowVariableOperation, AllowHostVolumeOperation,
// AllowNodePoolOperation,
// AllowNode/Agent/Operator/Quota Read/Write, AllowPluginList/Read,
// IsManagement; NamespaceOperationElsewhere describes where a capability
// is allowed outside a set of known namespace names ("" nowhere, "*"
// everywhere, else the deciding rules), which with the known names it is
// allowed in stands for the whole decision (the agent's reply cache keys
// a listing by it). FuzzParse fuzzes the parser.
//
// Variables are granted only by a namespace's variables block, path by
// path: the closest path glob decides, read implies list, deny wins, and a
// namespace's policy or capabilities grant no variable at all (Nomad's
// rule: `namespace "x" { policy = "write" }` reads no variable of x).
//
// ACLs are off unless the agent config has acl { enabled = true }
// (token_ttl, policy_ttl: how long a resolved token is cached, default 30
// s). Token resolution and its cache are package server/auth; who checks
// what is the method table of package server (access.go) and, for the
// agent's own routes, package agent (acl_rules.go).
package acl
