package model

// What the core's external tests (package model_test, which may import
// model/internal/dialecttest) need of its unexported state.

// HoldsBatch reports whether s still holds bytes of a batch: the data of
// the event being added or the structure the batch's validation found. It
// must not once AddBatch returns, for the reader reuses the batch's memory
// (dialecttest.Held).
func HoldsBatch(s *Session) bool { return s.idx.Holds() || s.cur != nil }

// ShapeDataMax is the size of data over which Session.Shape reads the
// session rather than the data (TestShapeSkipsBigData).
const ShapeDataMax = shapeDataMax
