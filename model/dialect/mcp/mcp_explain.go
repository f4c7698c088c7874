package mcp

import (
	"strings"

	"github.com/streamtap/streamtap/model"
)

// This file teaches MCP's streamable HTTP: the shape of each message (see
// Session.Shape) and the explanation of each shape. A request or a
// notification is shaped by its method; a response by what it answers,
// which the assembly keeps (the session keeps no method for it).

// methods are the methods a row explains; any other is a request or a
// notification of a method no row knows (typeRequest, typeNotified).
var methods = map[string]bool{
	methodProgress: true, methodLog: true, methodCancelled: true,
	"notifications/tools/list_changed": true, "notifications/resources/list_changed": true,
	"notifications/prompts/list_changed": true, "notifications/resources/updated": true,
	"notifications/elicitation/complete": true,
	methodElicitation:                    true, methodSampling: true, "roots/list": true, "ping": true,
}

// resultSubs are the requests whose results have rows of their own.
var resultSubs = map[string]bool{"initialize": true, "tools/list": true, methodToolsCall: true, subToolError: true}

// Shape names what an MCP message is: its method, or what a response
// answers.
func (mcpDialect) Shape(s *model.Session, ev *model.Event, ord int, typ string, _ []byte) model.Shape {
	sh := model.Shape{Dialect: Protocol.ID(), Type: typ}
	switch typ {
	case TypeResult, TypeError:
		sub := ""
		if st := state(s); st != nil {
			sub = st.subs[ord]
		}
		if (typ == TypeResult && resultSubs[sub]) || (typ == TypeError && sub == methodToolsCall) {
			sh.Sub = sub
		}
	case TypePriming, TypeInvalid, TypeBatch, typeRequest, typeNotified:
	default:
		if !methods[typ] {
			sh.Type = typeRequest
			if strings.HasPrefix(typ, "notifications/") {
				sh.Type = typeNotified
			}
		}
	}
	return sh
}

// Explanations are the MCP rows of the explanations table.
func (mcpDialect) Explanations() []model.Explanation {
	d := Protocol.ID()
	const (
		sse      = `One SSE event "event: message" (with an id: when the server can resume the stream), its data one JSON-RPC message.`
		response = "jsonrpc: \"2.0\", id (the request's), "
	)
	return []model.Explanation{
		model.NewExplanation(d, TypeResult, methodToolsCall,
			"Answers a tools/call: the call's outcome. The call itself (the tool's name and arguments) was the request's body; this is its result, the last message of the request's stream, after which the server closes the stream. "+sse,
			response+"result {content [{type: text, text} | image | audio | resource_link | resource], structuredContent (with an outputSchema), isError: false or absent, _meta}.",
			"Resolves the call; an agent hands content (or structuredContent) back to the model as the tool's output.",
			"A result after the stream was cut (a resumable server sends it on the GET that resumes it); an id that matches no request; a second result; text content that disagrees with structuredContent.",
			ruleUnknownID, ruleSecondResponse, ruleNoResponse),
		model.NewExplanation(d, TypeResult, subToolError,
			"Answers a tools/call with isError: true: the tool ran and failed, and content says why, for the model to read and act on. A tool error, not a protocol error: the JSON-RPC exchange succeeded. The TypeScript SDK's McpServer also answers an unknown tool and arguments that fail the input schema this way (text \"MCP error -32602: …\").",
			response+"result {content [{type: text, text: the error}], isError: true}.",
			"Returns the result as any other: the agent passes the error text to the model, which may retry.",
			"Agents that treat it as success and drop the text; servers that throw instead (then a JSON-RPC error the model never sees).",
			ruleToolError),
		model.NewExplanation(d, TypeResult, "initialize",
			"Answers initialize: the version of the protocol the server speaks and what it offers. With a stateful server the response head carries Mcp-Session-Id, which every later request of the client repeats.",
			response+"result {protocolVersion, capabilities {tools, resources, prompts, logging, completions… listChanged, subscribe}, serverInfo {name, version}, instructions}.",
			"Keeps the session id and protocol version (sent back as Mcp-Session-Id and MCP-Protocol-Version headers), then POSTs notifications/initialized (answered 202) and may open the GET stream.",
			"A version the client does not support (it disconnects); the session id lost by a proxy that drops the header.",
			ruleUnknownID),
		model.NewExplanation(d, TypeResult, "tools/list",
			"Answers tools/list: the tools the server declares, each with the JSON Schema of its arguments (and of its structured output).",
			response+"result {tools [{name, title, description, inputSchema, outputSchema, annotations, execution}], nextCursor}.",
			"Offers the tools to the model (often renamed or prefixed by the agent); lists again after notifications/tools/list_changed.",
			"A stale list: tools changed while no GET stream was open to hear list_changed.",
			ruleUnknownID),
		model.NewExplanation(d, TypeResult, "",
			"Answers a request of the client's other than a tool call (resources/list, resources/read, prompts/list, prompts/get, logging/setLevel, ping, completion/complete…), or a request this reading has not seen. "+sse,
			response+"result, shaped by the request's method (contents[], messages[], resources[], prompts[], {} for ping and setLevel).",
			"Resolves the pending request of that id.",
			"An id that matches no request; a second response to one id.",
			ruleUnknownID, ruleSecondResponse),
		model.NewExplanation(d, TypeError, methodToolsCall,
			"Answers a tools/call with a JSON-RPC error: the call could not be made (a protocol error: unknown tool, malformed request, a server error, or an error the server raised as one, such as -32042 URL elicitation required). The model never sees it unless the agent passes it on.",
			"jsonrpc: \"2.0\", id, error {code (-32700 parse, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal, -32000…-32099 server), message, data}.",
			"Raises it (the TypeScript SDK: McpError, whose message repeats the prefix \"MCP error <code>: \" the server's message may already carry).",
			"Clients that cannot tell it from a tool error (isError); a resumable stream that ends with it, which the TypeScript SDK 1.x still resumes with a pointless GET.",
			ruleRPCError, ruleUnknownID, ruleSecondResponse),
		model.NewExplanation(d, TypeError, "",
			"Answers a request with a JSON-RPC error; with id null, the server could not read the request at all (bad JSON, an unknown session: HTTP 400 or 404 before any stream).",
			"jsonrpc: \"2.0\", id (or null), error {code, message, data}.",
			"Rejects the pending request of that id; an error with id null ends what the client was sending.",
			"Error bodies sent with HTTP 200; an id that matches no request.",
			ruleUnknownID, ruleSecondResponse, "framing/error-payload"),
		model.NewExplanation(d, methodProgress, "",
			"Reports progress of a request that asked for it (its params._meta.progressToken), before the request's response, on the request's own stream.",
			"jsonrpc: \"2.0\", method, params {progressToken (the request's: the TypeScript SDK uses its id), progress (increasing), total, message}.",
			"Calls the request's progress handler; with resetTimeoutOnProgress, restarts its timeout.",
			"A token no request sent, or progress after the response: the client reports an error and drops it. A JSON-mode server (enableJsonResponse) drops every progress notification.",
			ruleProgressToken, ruleProgressAfter),
		model.NewExplanation(d, methodLog, "",
			"A log message of the server's, at or above the level the client set (logging/setLevel): on the stream of the request it concerns, else on the GET stream.",
			"jsonrpc: \"2.0\", method, params {level (debug … emergency), logger, data (any JSON)}.",
			"Shows or logs it; it changes nothing of any request.",
			"Messages unrelated to a request are lost when no GET stream is open; a JSON-mode server drops them all.",
		),
		model.NewExplanation(d, "notifications/tools/list_changed", "",
			"Says the server's tools changed: the client should list them again. Unrelated to any request, it travels on the GET stream.",
			"jsonrpc: \"2.0\", method (no params).",
			"Lists tools again (tools/list) and offers the new list to the model.",
			"Lost when no GET stream is open (the server has nowhere to send it).",
		),
		model.NewExplanation(d, "notifications/resources/list_changed", "",
			"Says the server's resources changed; on the GET stream.",
			"jsonrpc: \"2.0\", method.",
			"Lists resources again.",
			"Lost when no GET stream is open.",
		),
		model.NewExplanation(d, "notifications/prompts/list_changed", "",
			"Says the server's prompts changed; on the GET stream.",
			"jsonrpc: \"2.0\", method.",
			"Lists prompts again.",
			"Lost when no GET stream is open.",
		),
		model.NewExplanation(d, "notifications/resources/updated", "",
			"Says a resource the client subscribed to (resources/subscribe) changed.",
			"jsonrpc: \"2.0\", method, params {uri}.",
			"Reads the resource again (resources/read).",
			"Sent for a resource nobody subscribed to.",
		),
		model.NewExplanation(d, methodCancelled, "",
			"Cancels a request: sent by either side for a request it made, which the other side then stops and never answers. The client POSTs it (answered 202); the server sends it on a stream for a request of its own.",
			"jsonrpc: \"2.0\", method, params {requestId, reason}.",
			"Stops the request's work and sends no response; the stream of a cancelled request may stay open with no terminal message until the session ends.",
			"A response sent anyway after the cancel; a reader that waits for a response to a cancelled request.",
		),
		model.NewExplanation(d, "notifications/elicitation/complete", "",
			"Says a URL-mode elicitation finished out of band (the user completed the page the server sent them to).",
			"jsonrpc: \"2.0\", method, params {elicitationId}.",
			"Retries the request the elicitation was for.",
			"Sent for an elicitation the client never saw.",
		),
		model.NewExplanation(d, methodElicitation, "",
			"Asks the user something in the middle of a request: the server's own request, on the stream of the call it is handling, which waits for the answer. The client answers with a POST of its own (a JSON-RPC response with this id, answered 202); then the call goes on.",
			"jsonrpc: \"2.0\", id (the server's: counted apart from the client's, so 0 again), method, params {mode (form, url), message, requestedSchema | url, elicitationId}.",
			"Shows the form (or opens the URL), then POSTs {result: {action: accept|decline|cancel, content}} with the same id.",
			"A client that declared no elicitation capability; a JSON-mode server cannot send it at all; the server's ids confused with the client's.",
			ruleServerIDReused),
		model.NewExplanation(d, methodSampling, "",
			"Asks the client's model for a completion in the middle of a request: the server's own request, which the client answers with a POST of its own.",
			"jsonrpc: \"2.0\", id (the server's), method, params {messages, systemPrompt, maxTokens, modelPreferences, tools, toolChoice}.",
			"Runs the completion (with the user's consent) and POSTs the result {role, content, model, stopReason} with the same id.",
			"A client without the sampling capability; a JSON-mode server cannot send it.",
			ruleServerIDReused),
		model.NewExplanation(d, "roots/list", "",
			"Asks the client for its roots (the directories or files it lets the server see): the server's own request.",
			"jsonrpc: \"2.0\", id (the server's), method.",
			"POSTs the result {roots [{uri, name}]} with the same id.",
			"A client without the roots capability.",
			ruleServerIDReused),
		model.NewExplanation(d, "ping", "",
			"The server checks the client is alive: its own request, with no params.",
			"jsonrpc: \"2.0\", id (the server's), method.",
			"POSTs an empty result {} with the same id at once.",
			"An unanswered ping, after which the server may end the session.",
			ruleServerIDReused),
		model.NewExplanation(d, typeRequest, "",
			"A request of the server's of a method no row here explains (tasks/…, or a server's own extension): the client answers it with a POST of its own, or an error -32601 method not found.",
			"jsonrpc: \"2.0\", id, method, params.",
			"Handles it if it knows the method; else answers -32601.",
			"A method the client declared no capability for.",
			ruleServerIDReused),
		model.NewExplanation(d, typeNotified, "",
			"A notification of a method no row here explains (tasks/status, or a server's own extension).",
			"jsonrpc: \"2.0\", method, params.",
			"Handles it if it knows the method; else ignores it.",
			"None in particular.",
		),
		model.NewExplanation(d, TypePriming, "",
			"Primes resumption: the first event of a stream from a server that can resume it, an id and empty data (sometimes a retry: delay). A client cut off before any message still has an id to resume from.",
			"id (the event id), retry (milliseconds before reconnecting), data: empty.",
			"Keeps the id as its resumption token; parses no data (empty data is skipped).",
			"Replayed by an event store as data: {} on a later resumption, which the client rejects (no JSON-RPC message).",
			ruleJSONRPC),
		model.NewExplanation(d, TypeInvalid, "",
			"A JSON object that is no JSON-RPC 2.0 message: no \"jsonrpc\": \"2.0\", or members that fit no message (the TypeScript SDK's example event store replays a priming event's data as {}).",
			"whatever it holds.",
			"Reports a schema error (onerror) and reads on; nothing is applied.",
			"It still moves the resumption token when it has an id.",
			ruleJSONRPC),
		model.NewExplanation(d, TypeBatch, "",
			"A JSON array of JSON-RPC messages in one body: a batch, which the protocol allowed until 2025-06-18. The TypeScript SDK's server answers a batch of requests on one stream; its client never sends one.",
			"an array of messages, each shaped as alone.",
			"Handles each message in turn.",
			"Servers of the current protocol that reject batches; an element that is no message.",
			ruleJSONRPC),
	}
}
