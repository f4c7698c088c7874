package checks

import "github.com/streamtap/streamtap/model/internal/modeltest"

// The stream and request builders the cases share with the dialects'
// tests (model/internal/modeltest), by the short names the cases use.
type revt = modeltest.Revt

var (
	dataSSE    = modeltest.DataSSE
	respSSE    = modeltest.RespSSE
	fc         = modeltest.FC
	respObj    = modeltest.RespObj
	respBase   = modeltest.RespBase
	resp       = modeltest.Resp
	chunk      = modeltest.Chunk
	choice     = modeltest.Choice
	tcs        = modeltest.Tcs
	chatBase   = modeltest.ChatBase
	chat       = modeltest.Chat
	anthSSE    = modeltest.AnthSSE
	aStart     = modeltest.AStart
	aDelta     = modeltest.ADelta
	aJSON      = modeltest.AJSON
	aStop      = modeltest.AStop
	aMsgDelta  = modeltest.AMsgDelta
	aMsgStart  = modeltest.AMsgStart
	aMsgStop   = modeltest.AMsgStop
	anthBase   = modeltest.AnthBase
	anth       = modeltest.Anth
	gemChunk   = modeltest.GemChunk
	gemBase    = modeltest.GemBase
	gemPartial = modeltest.GemPartial
	ollBase    = modeltest.OllBase
	ollDone    = modeltest.OllDone
	ndjson     = modeltest.NDJSON
	anthTool   = modeltest.AnthTool
)

const (
	argsDelta1 = modeltest.ArgsDelta1
	argsDelta2 = modeltest.ArgsDelta2
	usageChunk = modeltest.UsageChunk
	cityOnly   = modeltest.CityOnly
	needUnits  = modeltest.NeedUnits
)
