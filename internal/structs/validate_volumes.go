package structs

import "sort"

// validateVolumes checks the group's volume claims and its tasks' mounts:
// only host volumes are scheduled, a claim names its source, and a mount
// names a claim of the group and a destination.
func (tg *TaskGroup) validateVolumes(v validator) {
	names := make([]string, 0, len(tg.Volumes))
	for name := range tg.Volumes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		req, vv := tg.Volumes[name], v.at("Volumes["+name+"]")
		if req == nil {
			vv.failHere("is empty")
			continue
		}
		vv.oneOf("Type", req.Type, VolumeTypeHost)
		vv.require("Source", req.Source)
	}
	for i, t := range tg.Tasks {
		if t == nil {
			continue
		}
		for j, m := range t.VolumeMounts {
			mv := v.index("Tasks", i).index("VolumeMounts", j)
			if m == nil {
				mv.failHere("is empty")
				continue
			}
			if tg.Volumes[m.Volume] == nil {
				mv.fail("Volume", "%q is not a volume of the group", m.Volume)
			}
			mv.require("Destination", m.Destination)
		}
	}
}
