package pagamento

import "testing"

// bbDocumentFields are the "Posição De/Até" columns of every field of the
// Banco do Brasil document (Particularidades BB, PgtVer03BB), record by
// record, from position 4 (fields 02.x onwards) to 240, including the
// document's split of the agreement code into BB1 to BB4.
var bbDocumentFields = []struct {
	rec    *record
	fields [][2]int
}{
	{&bbFileHeader, [][2]int{{4, 7}, {8, 8}, {9, 17}, {18, 18}, {19, 32}, {33, 52}, {42, 45}, {46, 50}, {51, 52}, {53, 57},
		{58, 58}, {59, 70}, {71, 71}, {72, 72}, {73, 102}, {103, 132}, {133, 142}, {143, 143}, {144, 151}, {152, 157},
		{158, 163}, {164, 166}, {167, 171}, {172, 191}, {192, 211}, {212, 240}}},
	{&bbBatchHeaderA, bbDocumentBatchHeader},
	{&bbBatchHeaderJ, bbDocumentBatchHeader},
	{&bbA, [][2]int{{4, 7}, {8, 8}, {9, 13}, {14, 14}, {15, 15}, {16, 17}, {18, 20}, {21, 23}, {24, 28}, {29, 29},
		{30, 41}, {42, 42}, {43, 43}, {44, 73}, {74, 93}, {94, 101}, {102, 104}, {105, 119}, {120, 134}, {135, 154},
		{155, 162}, {163, 177}, {178, 217}, {218, 219}, {220, 224}, {225, 226}, {227, 229}, {230, 230}, {231, 240}}},
	{&bbB, [][2]int{{4, 7}, {8, 8}, {9, 13}, {14, 14}, {15, 17}, {18, 18}, {19, 32}, {33, 62}, {63, 67}, {68, 82},
		{83, 97}, {98, 117}, {118, 122}, {123, 125}, {126, 127}, {128, 135}, {136, 150}, {151, 165}, {166, 180},
		{181, 195}, {196, 210}, {211, 225}, {226, 226}, {227, 232}, {233, 240}}},
	{&bbJ, [][2]int{{4, 7}, {8, 8}, {9, 13}, {14, 14}, {15, 15}, {16, 17}, {18, 61}, {62, 91}, {92, 99}, {100, 114},
		{115, 129}, {130, 144}, {145, 152}, {153, 167}, {168, 182}, {183, 202}, {203, 222}, {223, 224}, {225, 230},
		{231, 240}}},
	{&bbJ52, [][2]int{{4, 7}, {8, 8}, {9, 13}, {14, 14}, {15, 15}, {16, 17}, {18, 19}, {20, 20}, {21, 35}, {36, 75},
		{76, 76}, {77, 91}, {92, 131}, {132, 132}, {133, 147}, {148, 187}, {188, 240}}},
	{&bbBatchTrailer, [][2]int{{4, 7}, {8, 8}, {9, 17}, {18, 23}, {24, 41}, {42, 59}, {60, 65}, {66, 230}, {231, 240}}},
	{&bbFileTrailer, [][2]int{{4, 7}, {8, 8}, {9, 17}, {18, 23}, {24, 29}, {30, 35}, {36, 240}}},
}

var bbDocumentBatchHeader = [][2]int{{4, 7}, {8, 8}, {9, 9}, {10, 11}, {12, 13}, {14, 16}, {17, 17}, {18, 18}, {19, 32},
	{33, 52}, {42, 45}, {46, 50}, {51, 52}, {53, 57}, {58, 58}, {59, 70}, {71, 71}, {72, 72}, {73, 102}, {103, 142},
	{143, 172}, {173, 177}, {178, 192}, {193, 212}, {213, 217}, {218, 220}, {221, 222}, {223, 230}, {231, 240}}

// TestBBFieldBoundaries checks that every field of the BB document begins
// and ends where a field of our table does (our tables may split a
// field further, as BB1 to BB4 or the blanks of a reserved range).
func TestBBFieldBoundaries(t *testing.T) {
	t.Parallel()
	for _, d := range bbDocumentFields {
		starts, ends := map[int]bool{}, map[int]bool{}
		for _, f := range d.rec.fields {
			starts[f.Start], ends[f.End] = true, true
		}
		for _, f := range d.fields {
			if !starts[f[0]] || !ends[f[1]] {
				t.Errorf("BB %s: the document's field %d-%d is not a field of the table", d.rec.name, f[0], f[1])
			}
		}
	}
}
