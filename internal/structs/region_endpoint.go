package structs

// RegionListResponse lists the regions this cluster knows.
type RegionListResponse struct {
	Regions []string
}
