package bucket

// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
// Howard Hinnant's days_from_civil and civil_from_days. Working on integers instead of
// time.Date keeps bucket boundaries exact for any year and makes For cheap.

const secondsPerDay = 86400

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// daysFromCivil returns the day number of y-m-d.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400                         // [0, 399]
	doy := int64((153*((m+9)%12)+2)/5 + d - 1) // [0, 365], March = 0
	doe := yoe*365 + yoe/4 - yoe/100 + doy     // [0, 146096]
	return era*146097 + doe - 719468
}

// civilFromDays returns the date of day number z.
func civilFromDays(z int64) (y int64, m, d int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11], March = 0
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y int64, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Day 0, 1970-01-01, was a Thursday; ISO weeks start on Monday. isoWeekIndex numbers the
// Monday-to-Sunday weeks so that week 0 runs from Monday 1969-12-29.
func isoWeekIndex(dayNum int64) int64 { return floorDiv(dayNum+3, 7) }

func mondayOf(week int64) int64 { return week*7 - 3 }

// firstMonday returns the day number of the Monday that starts ISO week 1 of isoYear: the
// week holding January 4.
func firstMonday(isoYear int64) int64 {
	jan4 := daysFromCivil(isoYear, 1, 4)
	return jan4 - floorMod(jan4+3, 7)
}

// isoWeekOf returns the ISO year and week (1 to 53) of the week with the given index.
func isoWeekOf(week int64) (isoYear int64, w int) {
	thursday := mondayOf(week) + 3 // the Thursday decides the ISO year
	isoYear, _, _ = civilFromDays(thursday)
	return isoYear, int((thursday-daysFromCivil(isoYear, 1, 1))/7) + 1
}

func weeksIn(isoYear int64) int { return int((firstMonday(isoYear+1) - firstMonday(isoYear)) / 7) }
