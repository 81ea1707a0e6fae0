package fingerprint

import "context"

// fingerprintDrivers records each driver's info and, for detected
// drivers, its attributes; "driver.NAME" = "1" marks a healthy one, which
// is what the scheduler's driver check looks for.
func fingerprintDrivers(ctx context.Context, cfg Config, r *Result) error {
	if cfg.Drivers == nil {
		return nil
	}
	for name, info := range cfg.Drivers.FingerprintAll(ctx) {
		if info == nil {
			continue
		}
		r.Drivers[name] = info
		if !info.Detected {
			continue
		}
		for k, v := range info.Attributes {
			r.Attributes[k] = v
		}
		if info.Healthy {
			r.Attributes["driver."+name] = "1"
		} else {
			delete(r.Attributes, "driver."+name)
		}
	}
	return nil
}
