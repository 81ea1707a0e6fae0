package command

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"strings"
	"time"
)

func init() {
	register("tls ca create", tlsCACreateCmd)
	register("tls ca info", tlsInfoCmd("tls ca info", "Show certificate authority information"))
	register("tls cert create", tlsCertCreateCmd)
	register("tls cert info", tlsInfoCmd("tls cert info", "Show certificate information"))
}

func tlsCACreateCmd() *cmd {
	var days int
	var domain, commonName string
	var constraint bool
	var extraDomains strList
	c := &cmd{Name: "tls ca create", Synopsis: "Create a certificate authority for Drover",
		Help: "Writes <domain>-agent-ca.pem and <domain>-agent-ca-key.pem (ECDSA P-256) in the current directory: " +
			"the ca_file of the agents' tls {} block, and what `tls cert create` signs with."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.IntVar(&days, "days", 1825, "How many days the CA is valid.")
		fs.StringVar(&domain, "domain", "nomad", "The domain of the certificates this CA signs.")
		fs.StringVar(&commonName, "common-name", "", "The CA's common name (default: Nomad Agent CA <serial>).")
		fs.BoolVar(&constraint, "name-constraint", false, "Restrict the CA to the domain, localhost and -additional-domain.")
		fs.Var(&extraDomains, "additional-domain", "Another domain for the name constraint. Repeatable.")
	}
	c.Run = func(e *env, args []string) error {
		certFile, keyFile := domain+"-agent-ca.pem", domain+"-agent-ca-key.pem"
		if err := refuseExisting(certFile, keyFile); err != nil {
			return err
		}
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		serial, err := randomSerial()
		if err != nil {
			return err
		}
		if commonName == "" {
			commonName = "Nomad Agent CA " + serial.String()
		}
		id := keyID(&key.PublicKey)
		tmpl := &x509.Certificate{
			SerialNumber: serial, Subject: pkix.Name{CommonName: commonName, Organization: []string{"Drover"}},
			NotBefore: now().Add(-time.Minute), NotAfter: now().AddDate(0, 0, days),
			IsCA: true, BasicConstraintsValid: true,
			KeyUsage:     x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
			SubjectKeyId: id, AuthorityKeyId: id,
		}
		if constraint {
			tmpl.PermittedDNSDomainsCritical = true
			tmpl.PermittedDNSDomains = append([]string{domain, "localhost"}, extraDomains...)
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			return err
		}
		if err := writePEMs(certFile, der, keyFile, key); err != nil {
			return err
		}
		e.say("==> ", "CA certificate saved to: %s", certFile)
		e.say("==> ", "CA certificate key saved to: %s", keyFile)
		return nil
	}
	return c
}

func tlsCertCreateCmd() *cmd {
	var server, client, cli bool
	var caFile, keyFile, region, domain, nodeName string
	var days int
	var dnsNames, ips strList
	c := &cmd{Name: "tls cert create", Synopsis: "Create a new certificate",
		Help: "Signs a certificate for a server (-server: server.<region>.<domain>, localhost, 127.0.0.1), a client " +
			"(-client) or the CLI (-cli) with the CA from `tls ca create`, and writes <region>-<role>-<domain>.pem " +
			"and -key.pem: the cert_file and key_file of the agent's tls {} block (or -client-cert/-client-key for the CLI)."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&server, "server", false, "A server certificate.")
		fs.BoolVar(&client, "client", false, "A client certificate.")
		fs.BoolVar(&cli, "cli", false, "A certificate for the CLI.")
		fs.StringVar(&caFile, "ca", "#DOMAIN#-agent-ca.pem", "The CA certificate.")
		fs.StringVar(&keyFile, "key", "#DOMAIN#-agent-ca-key.pem", "The CA's key.")
		fs.StringVar(&domain, "domain", "nomad", "The domain the certificate is for.")
		fs.StringVar(&nodeName, "node", "", "A node name to add as <node>.<role>.<region>.<domain>.")
		fs.IntVar(&days, "days", 365, "How many days the certificate is valid.")
		fs.Var(&dnsNames, "additional-dnsname", "Another DNS name. Repeatable.")
		fs.Var(&ips, "additional-ipaddress", "Another IP address. Repeatable.")
	}
	c.Run = func(e *env, args []string) error {
		role := ""
		for r, on := range map[string]bool{"server": server, "client": client, "cli": cli} {
			if on {
				if role != "" {
					return errorf("give exactly one of -server, -client and -cli")
				}
				role = r
			}
		}
		if role == "" {
			return errorf("give exactly one of -server, -client and -cli")
		}
		region = e.region // the global -region flag names the certificate's region
		if region == "" {
			region = "global"
		}
		caFile = strings.ReplaceAll(caFile, "#DOMAIN#", domain)
		keyFile = strings.ReplaceAll(keyFile, "#DOMAIN#", domain)
		ca, caKey, err := loadCA(caFile, keyFile)
		if err != nil {
			return err
		}
		base := fmt.Sprintf("%s-%s-%s", region, role, domain)
		certOut, keyOut := base+".pem", base+"-key.pem"
		if err := refuseExisting(certOut, keyOut); err != nil {
			return err
		}
		name := fmt.Sprintf("%s.%s.%s", role, region, domain)
		names := []string{name, "localhost"}
		if nodeName != "" {
			names = append(names, nodeName+"."+name)
		}
		names = append(names, dnsNames...)
		addrs := []net.IP{net.ParseIP("127.0.0.1")}
		for _, s := range ips {
			ip := net.ParseIP(s)
			if ip == nil {
				return errorf("-additional-ipaddress %q is not an IP address", s)
			}
			addrs = append(addrs, ip)
		}
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		serial, err := randomSerial()
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber: serial, Subject: pkix.Name{CommonName: name},
			NotBefore: now().Add(-time.Minute), NotAfter: now().AddDate(0, 0, days),
			KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			DNSNames:    names, IPAddresses: addrs, BasicConstraintsValid: true,
			SubjectKeyId: keyID(&key.PublicKey), AuthorityKeyId: ca.SubjectKeyId,
		}
		if role == "cli" {
			tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		if err := writePEMs(certOut, der, keyOut, key); err != nil {
			return err
		}
		e.say("==> ", "Using CA file %s and CA key %s", caFile, keyFile)
		e.say("==> ", "%s Certificate saved to: %s", strings.ToUpper(role[:1])+role[1:], certOut)
		e.say("==> ", "%s Certificate key saved to: %s", strings.ToUpper(role[:1])+role[1:], keyOut)
		return nil
	}
	return c
}

func tlsInfoCmd(name, synopsis string) func() *cmd {
	return func() *cmd {
		c := &cmd{Name: name, Args: "<pem file>", MinArgs: 1, MaxArgs: 1, Read: true, Synopsis: synopsis}
		c.Run = func(e *env, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			blk, _ := pem.Decode(b)
			if blk == nil || blk.Type != "CERTIFICATE" {
				return errorf("%s: no PEM certificate", args[0])
			}
			cert, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return errorf("%s: %v", args[0], err)
			}
			return e.output(cert, func() error {
				writeKV(e.stdout, [][2]string{
					{"Serial Number", cert.SerialNumber.String()}, {"Issuer CN", cert.Issuer.CommonName},
					{"Common Name", cert.Subject.CommonName}, {"Expiry Date", cert.NotAfter.UTC().Format(time.RFC3339)},
					{"Permitted DNS Domains", fmt.Sprint(cert.PermittedDNSDomains)}, {"DNS Names", fmt.Sprint(cert.DNSNames)},
					{"IP Addresses", fmt.Sprint(cert.IPAddresses)},
				})
				return nil
			})
		}
		return c
	}
}

func refuseExisting(files ...string) error {
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return errorf("%s already exists: move it away or run elsewhere", f)
		}
	}
	return nil
}

func randomSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func keyID(pub *ecdsa.PublicKey) []byte {
	der, _ := x509.MarshalPKIXPublicKey(pub)
	sum := sha256.Sum256(der)
	return sum[:20]
}

func writePEMs(certFile string, der []byte, keyFile string, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
}

func loadCA(certFile, keyFile string) (*x509.Certificate, any, error) {
	cb, err := os.ReadFile(certFile)
	if err != nil {
		return nil, nil, errorf("reading the CA certificate: %v (create one with `drover tls ca create`)", err)
	}
	kb, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, errorf("reading the CA key: %v", err)
	}
	cblk, _ := pem.Decode(cb)
	kblk, _ := pem.Decode(kb)
	if cblk == nil || kblk == nil {
		return nil, nil, errors.New("the CA certificate or key is not PEM")
	}
	ca, err := x509.ParseCertificate(cblk.Bytes)
	if err != nil {
		return nil, nil, err
	}
	var key any
	if key, err = x509.ParseECPrivateKey(kblk.Bytes); err != nil {
		if key, err = x509.ParsePKCS8PrivateKey(kblk.Bytes); err != nil {
			return nil, nil, errorf("the CA key: %v", err)
		}
	}
	return ca, key, nil
}
