import EngineSupport
import Foundation
import TextGeneration
import Tokenizers

/// A retrieved chunk an answer is grounded on; `number` is how the prompt (and the answer's
/// `[n]` references) name it.
package struct Citation: Sendable, Equatable {
    package var number: Int
    package var chunk: ChunkKey
    package var score: Float
    package var text: String
    package var metadata: [String: String]

    package init(number: Int, chunk: ChunkKey, score: Float, text: String, metadata: [String: String]) {
        self.number = number
        self.chunk = chunk
        self.score = score
        self.text = text
        self.metadata = metadata
    }
}

/// What `RAGSession.ask` streams, in order: the citations once, then the answer's text as it is
/// generated, then `finished` exactly once (unless an error ends the stream).
package enum RAGEvent: Sendable, Equatable {
    case retrieved(citations: [Citation], capability: SearchCapability)
    case token(String)
    case finished(RAGAnswer)
}

/// A complete grounded answer.
package struct RAGAnswer: Sendable, Equatable {
    package var text: String
    package var citations: [Citation]
    /// How the chunks were found (semantic or lexical).
    package var capability: SearchCapability
    package var metrics: GenerationMetrics
}

/// Options of `ask`.
package struct RAGOptions: Sendable, Equatable {
    /// Chunks retrieved per question.
    package var k = 4
    package var generation: GenerationOptions
    /// The LLM session's context; chunks that do not fit beside the answer budget are dropped,
    /// lowest-ranked first.
    package var contextLength = 2048
    package var threads: Int?
    package var systemPrompt = "You answer questions using only the numbered context passages. "
        + "Cite the passages you use like [1]. If the passages do not contain the answer, say that you do not know."

    package init() {
        generation = GenerationOptions()
        generation.sampling = .greedy
        generation.maxTokens = 200
    }
}

/// Retrieval-augmented generation over a `DocumentIndex` with a chat model on our engine:
/// `ask` retrieves the best chunks, puts them numbered into the model's chat template, and
/// streams the answer with the chunk ids and scores as citations.
package struct RAGSession: Sendable {
    package let index: DocumentIndex
    package let llm: LanguageModel
    package let template: ChatTemplate
    package var options: RAGOptions

    /// `rag.open(index:llm:)`: fails when the model has no chat template.
    package static func open(index: DocumentIndex, llm: LanguageModel, options: RAGOptions = RAGOptions()) throws(RetrievalError) -> RAGSession {
        do {
            return RAGSession(index: index, llm: llm, template: try llm.chatTemplate(), options: options)
        } catch {
            throw .engine(error)
        }
    }

    /// Streams a grounded answer to `question`. Cancelling the consumer stops retrieval or
    /// generation within one step and ends the stream there: a cancelled answer never reports
    /// `finished`.
    package func ask(_ question: String) -> CancellableStream<RAGEvent> {
        let (stream, continuation) = AsyncThrowingStream<RAGEvent, Error>.makeStream()
        let session = self
        let task = Task.detached {
            do {
                try await session.run(question, continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return CancellableStream(stream)
    }

    private func run(_ question: String, _ out: AsyncThrowingStream<RAGEvent, Error>.Continuation) async throws {
        let found = try await index.search(question, k: options.k)
        if Task.isCancelled { throw RetrievalError.cancelled }
        let llmSession = Session(model: llm, contextLength: options.contextLength, threads: options.threads)
        var citations = found.hits.enumerated().map { i, hit in
            Citation(number: i + 1, chunk: hit.chunk, score: hit.score, text: hit.text, metadata: hit.metadata)
        }
        var prompt = try promptIds(question, citations)
        while prompt.count + options.generation.maxTokens > llmSession.contextLength && !citations.isEmpty {
            citations.removeLast()
            prompt = try promptIds(question, citations)
        }
        out.yield(.retrieved(citations: citations, capability: found.capability))
        var text = ""
        for try await event in generateStream(session: llmSession, prompt: prompt, options: options.generation) {
            switch event {
            case .token(_, let piece):
                if !piece.isEmpty {
                    text += piece
                    out.yield(.token(piece))
                }
            case .finished(let result):
                out.yield(.finished(RAGAnswer(text: text, citations: citations, capability: found.capability,
                                              metrics: result.metrics)))
            }
        }
    }

    /// The chat prompt: the system instruction, then one user turn with the numbered passages
    /// and the question.
    package func prompt(_ question: String, _ citations: [Citation]) throws(TokenizerError) -> RenderedPrompt {
        var context = ""
        for c in citations {
            let source = c.metadata["path"].map { " (\(($0 as NSString).lastPathComponent))" } ?? ""
            context += "[\(c.number)]\(source) \(c.text.trimmingCharacters(in: .whitespacesAndNewlines))\n\n"
        }
        let user = citations.isEmpty
            ? "There are no passages.\n\nQuestion: \(question)"
            : "Passages:\n\n\(context)Question: \(question)"
        return try template.prompt(messages: [ChatMessage(role: .system, content: options.systemPrompt),
                                              ChatMessage(role: .user, content: user)], addGenerationPrompt: true)
    }

    private func promptIds(_ question: String, _ citations: [Citation]) throws -> [Int32] {
        // Passages are documents: their text can never become a control token.
        llm.tokenizer.encode(try prompt(question, citations))
    }
}
