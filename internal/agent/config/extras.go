package config

import (
	"encoding/base64"
	"fmt"
	"log/syslog"
	"strings"
)

// GossipKey decodes server.encrypt: base64 (standard encoding) of a 16,
// 24 or 32 byte AES key, as `nomad operator gossip keyring generate`
// prints.
func GossipKey(s string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not base64: %v", err)
	}
	switch len(k) {
	case 16, 24, 32:
		return k, nil
	}
	return nil, fmt.Errorf("the key is %d bytes; it must be 16, 24 or 32", len(k))
}

// syslogFacilities are the names syslog_facility takes (any case).
var syslogFacilities = map[string]syslog.Priority{
	"KERN": syslog.LOG_KERN, "USER": syslog.LOG_USER, "MAIL": syslog.LOG_MAIL, "DAEMON": syslog.LOG_DAEMON,
	"AUTH": syslog.LOG_AUTH, "SYSLOG": syslog.LOG_SYSLOG, "LPR": syslog.LOG_LPR, "NEWS": syslog.LOG_NEWS,
	"UUCP": syslog.LOG_UUCP, "CRON": syslog.LOG_CRON, "AUTHPRIV": syslog.LOG_AUTHPRIV, "FTP": syslog.LOG_FTP,
	"LOCAL0": syslog.LOG_LOCAL0, "LOCAL1": syslog.LOG_LOCAL1, "LOCAL2": syslog.LOG_LOCAL2, "LOCAL3": syslog.LOG_LOCAL3,
	"LOCAL4": syslog.LOG_LOCAL4, "LOCAL5": syslog.LOG_LOCAL5, "LOCAL6": syslog.LOG_LOCAL6, "LOCAL7": syslog.LOG_LOCAL7,
}

// SyslogFacilityPriority returns the syslog priority of Logging.SyslogFacility.
func (l *Logging) SyslogFacilityPriority() syslog.Priority {
	return syslogFacilities[strings.ToUpper(l.SyslogFacility)]
}
