package bucket

// The daylight-saving tests need zones such as Australia/Lord_Howe and Pacific/Apia on any
// machine, including minimal CI images without /usr/share/zoneinfo. The database is linked
// into the test binary only; the package itself leaves time zones to its caller.
import _ "time/tzdata"
