// allocatedOn sums the CPU and memory of a node's live allocations.
export function allocatedOn(allocs) {
  let cpu = 0, mem = 0;
  for (const a of allocs) {
    if (a.DesiredStatus !== 'run' || ['complete', 'failed', 'lost'].includes(a.ClientStatus)) continue;
    for (const t of Object.values((a.AllocatedResources && a.AllocatedResources.Tasks) || {})) {
      cpu += (t.Cpu && t.Cpu.CpuShares) || 0;
      mem += (t.Memory && t.Memory.MemoryMB) || 0;
    }
  }
  return { cpu, mem };
}
