package apiconv

import (
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// ACLAuthMethodToStructs converts an auth method from the API. The
// caller refuses Config.OIDCClientAssertion, which has no counterpart.
func ACLAuthMethodToStructs(m *api.ACLAuthMethod) *structs.ACLAuthMethod {
	out := &structs.ACLAuthMethod{Name: m.Name, Type: m.Type, TokenLocality: m.TokenLocality,
		TokenNameFormat: m.TokenNameFormat, MaxTokenTTL: m.MaxTokenTTL, Default: m.Default}
	if c := m.Config; c != nil {
		out.Config = &structs.ACLAuthMethodConfig{
			JWTValidationPubKeys: c.JWTValidationPubKeys, JWKSURL: c.JWKSURL, JWKSCACert: c.JWKSCACert,
			OIDCDiscoveryURL: c.OIDCDiscoveryURL, DiscoveryCaPem: c.DiscoveryCaPem,
			OIDCClientID: c.OIDCClientID, OIDCClientSecret: c.OIDCClientSecret, OIDCEnablePKCE: c.OIDCEnablePKCE,
			OIDCDisableUserInfo: c.OIDCDisableUserInfo, OIDCScopes: c.OIDCScopes, AllowedRedirectURIs: c.AllowedRedirectURIs,
			BoundAudiences: c.BoundAudiences, BoundIssuer: c.BoundIssuer, SigningAlgs: c.SigningAlgs,
			ExpirationLeeway: c.ExpirationLeeway, NotBeforeLeeway: c.NotBeforeLeeway, ClockSkewLeeway: c.ClockSkewLeeway,
			ClaimMappings: c.ClaimMappings, ListClaimMappings: c.ListClaimMappings, VerboseLogging: c.VerboseLogging,
		}
	}
	return out
}

// ACLAuthMethodFromStructs converts a stored auth method to the API.
func ACLAuthMethodFromStructs(m *structs.ACLAuthMethod) *api.ACLAuthMethod {
	out := &api.ACLAuthMethod{Name: m.Name, Type: m.Type, TokenLocality: m.TokenLocality,
		TokenNameFormat: m.TokenNameFormat, MaxTokenTTL: m.MaxTokenTTL, Default: m.Default,
		CreateTime: m.CreateTime, ModifyTime: m.ModifyTime, CreateIndex: m.CreateIndex, ModifyIndex: m.ModifyIndex}
	if c := m.Config; c != nil {
		out.Config = &api.ACLAuthMethodConfig{
			JWTValidationPubKeys: c.JWTValidationPubKeys, JWKSURL: c.JWKSURL, JWKSCACert: c.JWKSCACert,
			OIDCDiscoveryURL: c.OIDCDiscoveryURL, DiscoveryCaPem: c.DiscoveryCaPem,
			OIDCClientID: c.OIDCClientID, OIDCClientSecret: c.OIDCClientSecret, OIDCEnablePKCE: c.OIDCEnablePKCE,
			OIDCDisableUserInfo: c.OIDCDisableUserInfo, OIDCScopes: c.OIDCScopes, AllowedRedirectURIs: c.AllowedRedirectURIs,
			BoundAudiences: c.BoundAudiences, BoundIssuer: c.BoundIssuer, SigningAlgs: c.SigningAlgs,
			ExpirationLeeway: c.ExpirationLeeway, NotBeforeLeeway: c.NotBeforeLeeway, ClockSkewLeeway: c.ClockSkewLeeway,
			ClaimMappings: c.ClaimMappings, ListClaimMappings: c.ListClaimMappings, VerboseLogging: c.VerboseLogging,
		}
	}
	return out
}

// ACLAuthMethodStub is an auth method as listed.
func ACLAuthMethodStub(m *structs.ACLAuthMethod) *api.ACLAuthMethodListStub {
	return &api.ACLAuthMethodListStub{Name: m.Name, Type: m.Type, Default: m.Default, CreateIndex: m.CreateIndex, ModifyIndex: m.ModifyIndex}
}

// ACLBindingRuleToStructs converts a binding rule from the API.
func ACLBindingRuleToStructs(r *api.ACLBindingRule) *structs.ACLBindingRule {
	return &structs.ACLBindingRule{ID: r.ID, Description: r.Description, AuthMethod: r.AuthMethod,
		Selector: r.Selector, BindType: r.BindType, BindName: r.BindName}
}

// ACLBindingRuleFromStructs converts a stored binding rule to the API.
func ACLBindingRuleFromStructs(r *structs.ACLBindingRule) *api.ACLBindingRule {
	return &api.ACLBindingRule{ID: r.ID, Description: r.Description, AuthMethod: r.AuthMethod,
		Selector: r.Selector, BindType: r.BindType, BindName: r.BindName,
		CreateTime: r.CreateTime, ModifyTime: r.ModifyTime, CreateIndex: r.CreateIndex, ModifyIndex: r.ModifyIndex}
}

// ACLBindingRuleStub is a binding rule as listed.
func ACLBindingRuleStub(r *structs.ACLBindingRule) *api.ACLBindingRuleListStub {
	return &api.ACLBindingRuleListStub{ID: r.ID, Description: r.Description, AuthMethod: r.AuthMethod,
		CreateIndex: r.CreateIndex, ModifyIndex: r.ModifyIndex}
}
