import Testing

/// Twenty schemas, five prompts each, for structured output on a real model. The schemas cover
/// objects (required and optional members, nesting), arrays with bounds, string enums,
/// numbers, integers, booleans, nullable members, top-level scalars and a tagged union.
struct StructuredOutputCase: Sendable, CustomTestStringConvertible {
    let name: String
    let schema: String
    let prompts: [String]
    var testDescription: String { name }
}

extension StructuredOutputCase {
    static let all: [StructuredOutputCase] = [
        .init(name: "person", schema: #"{"type":"object","properties":{"name":{"type":"string","maxLength":40},"age":{"type":"integer"},"email":{"type":"string","maxLength":60}},"required":["name","age"]}"#,
              prompts: ["Ada Lovelace was 36 when she died.", "Describe a 30 year old teacher called Maria.", "My name is Tom, I am 12 and my email is tom@example.com.", "Invent a person.", "Albert Einstein, aged 76."]),
        .init(name: "book", schema: #"{"type":"object","properties":{"title":{"type":"string","maxLength":60},"author":{"type":"string","maxLength":40},"year":{"type":"integer"},"genres":{"type":"array","items":{"enum":["fiction","science","history","fantasy","poetry"]},"maxItems":3}},"required":["title","author","year","genres"]}"#,
              prompts: ["The Hobbit by J.R.R. Tolkien, 1937.", "A Brief History of Time by Stephen Hawking.", "Describe a famous poetry book.", "1984 by George Orwell.", "Recommend a fantasy novel."]),
        .init(name: "weather", schema: #"{"type":"object","properties":{"city":{"type":"string","maxLength":30},"temperature_c":{"type":"number"},"condition":{"enum":["sunny","cloudy","rainy","snowy","windy"]}},"required":["city","temperature_c","condition"]}"#,
              prompts: ["It is 25 degrees and sunny in Lisbon.", "Snow in Oslo today, minus 5.", "London: rain, 12 degrees.", "What is the weather like in Paris?", "A windy day in Chicago at 8 degrees."]),
        .init(name: "sentiment", schema: #"{"type":"object","properties":{"sentiment":{"enum":["positive","negative","neutral"]},"confidence":{"type":"number"}},"required":["sentiment","confidence"]}"#,
              prompts: ["I love this phone, it is amazing!", "The food was cold and the waiter was rude.", "The meeting is at 3pm.", "Best day ever!", "I am not sure how I feel about the movie."]),
        .init(name: "todo list", schema: #"{"type":"array","items":{"type":"object","properties":{"task":{"type":"string","maxLength":40},"done":{"type":"boolean"}},"required":["task","done"]},"minItems":1,"maxItems":4}"#,
              prompts: ["Buy milk, call mom (done), fix the bike.", "Plan a birthday party.", "Things to do before a trip.", "Clean the kitchen and wash the car.", "Study for the exam."]),
        .init(name: "recipe", schema: #"{"type":"object","properties":{"name":{"type":"string","maxLength":40},"ingredients":{"type":"array","items":{"type":"string","maxLength":30},"minItems":1,"maxItems":6},"minutes":{"type":"integer"}},"required":["name","ingredients","minutes"]}"#,
              prompts: ["Pancakes.", "A simple tomato pasta.", "Scrambled eggs in 5 minutes.", "A green salad.", "Chocolate cake."]),
        .init(name: "yes or no", schema: #"{"type":"object","properties":{"answer":{"type":"boolean"},"reason":{"type":"string","maxLength":80}},"required":["answer","reason"]}"#,
              prompts: ["Is the sky blue?", "Can fish fly?", "Is water wet?", "Is 7 a prime number?", "Do cats bark?"]),
        .init(name: "color", schema: #"{"enum":["red","green","blue","yellow","black","white"]}"#,
              prompts: ["What color is grass?", "What color is the sky on a clear day?", "What color is snow?", "What color is a banana?", "What color is coal?"]),
        .init(name: "integer", schema: #"{"type":"integer"}"#,
              prompts: ["How many legs does a spider have?", "What is 2 plus 3?", "How many days are in a week?", "How many continents are there?", "What is 10 times 10?"]),
        .init(name: "three numbers", schema: #"{"type":"array","items":{"type":"number"},"minItems":3,"maxItems":3}"#,
              prompts: ["Give the first three prime numbers.", "Three numbers between 0 and 1.", "1, 2 and 3.", "Three temperatures in Celsius.", "The numbers pi, e and the square root of 2."]),
        .init(name: "address", schema: #"{"type":"object","properties":{"name":{"type":"string","maxLength":40},"address":{"type":"object","properties":{"street":{"type":"string","maxLength":40},"city":{"type":"string","maxLength":30},"zip":{"type":"string","maxLength":10},"country":{"type":"string","maxLength":30}},"required":["street","city","country"]}},"required":["name","address"]}"#,
              prompts: ["Sherlock Holmes lives at 221B Baker Street, London, UK.", "The White House, 1600 Pennsylvania Avenue, Washington, USA.", "Invent an address in Paris.", "John Smith, 10 Main St, Springfield 12345, USA.", "Where does Santa Claus live?"]),
        .init(name: "event", schema: #"{"type":"object","properties":{"title":{"type":"string","maxLength":40},"date":{"type":"string","maxLength":20},"attendees":{"type":"array","items":{"type":"string","maxLength":20},"maxItems":4},"online":{"type":"boolean"}},"required":["title","date","attendees","online"]}"#,
              prompts: ["Team standup on Monday with Ann and Bob over Zoom.", "Wedding on June 5 with family.", "A birthday party on Friday.", "Conference call tomorrow with the sales team.", "Book club meeting at the library on May 2."]),
        .init(name: "product", schema: #"{"type":"object","properties":{"name":{"type":"string","maxLength":40},"price":{"type":"number"},"in_stock":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string","maxLength":15},"maxItems":3},"rating":{"type":["number","null"]}},"required":["name","price","in_stock"]}"#,
              prompts: ["A red t-shirt for 15 dollars, in stock.", "Laptop, 999.99, sold out.", "Describe a coffee mug product.", "Wireless headphones rated 4.5 stars, 59 dollars.", "A new phone."]),
        .init(name: "translation", schema: #"{"type":"object","properties":{"source_language":{"type":"string","maxLength":20},"target_language":{"type":"string","maxLength":20},"text":{"type":"string","maxLength":80}},"required":["source_language","target_language","text"]}"#,
              prompts: ["Translate 'hello' to French.", "Translate 'thank you' into Spanish.", "How do you say 'good morning' in German?", "Translate 'cat' to Italian.", "Say 'water' in Portuguese."]),
        .init(name: "classification", schema: #"{"type":"object","properties":{"category":{"enum":["sports","politics","technology","health","entertainment"]},"keywords":{"type":"array","items":{"type":"string","maxLength":20},"minItems":1,"maxItems":3}},"required":["category","keywords"]}"#,
              prompts: ["The team won the championship last night.", "A new smartphone was released with a faster chip.", "The president signed a new law.", "Doctors recommend eating more vegetables.", "The movie broke box office records."]),
        .init(name: "movie", schema: #"{"type":"object","properties":{"title":{"type":"string","maxLength":40},"year":{"type":"integer"},"director":{"type":"string","maxLength":30},"rating":{"type":"number"},"sequel":{"anyOf":[{"type":"string","maxLength":40},{"type":"null"}]}},"required":["title","year","director","rating"]}"#,
              prompts: ["Jurassic Park by Steven Spielberg, 1993.", "The Matrix.", "Titanic, directed by James Cameron.", "Toy Story from 1995.", "Recommend a comedy."]),
        .init(name: "arithmetic", schema: #"{"type":"object","properties":{"expression":{"type":"string","maxLength":30},"result":{"type":"number"}},"required":["expression","result"]}"#,
              prompts: ["What is 2 + 2?", "Multiply 6 by 7.", "What is half of 10?", "Add 100 and 23.", "What is 9 minus 4?"]),
        .init(name: "contacts", schema: #"{"type":"object","properties":{"contacts":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","maxLength":30},"phone":{"type":"string","maxLength":20}},"required":["name","phone"]},"minItems":1,"maxItems":3}},"required":["contacts"]}"#,
              prompts: ["Alice 555-1234, Bob 555-9876.", "Call Mom at 123-456.", "List two friends with phone numbers.", "Emergency number 911.", "Dr. Lee: 555-0000."]),
        .init(name: "facts", schema: #"{"type":"object","properties":{"topic":{"type":"string","maxLength":30},"facts":{"type":"array","items":{"type":"string","maxLength":60},"minItems":2,"maxItems":3}},"required":["topic","facts"]}"#,
              prompts: ["Tell me about the Moon.", "Facts about dogs.", "What do you know about Paris?", "Interesting facts about water.", "Tell me about the sun."]),
        .init(name: "action", schema: #"{"oneOf":[{"type":"object","properties":{"action":{"const":"search"},"query":{"type":"string","maxLength":40}},"required":["action","query"]},{"type":"object","properties":{"action":{"const":"answer"},"text":{"type":"string","maxLength":60}},"required":["action","text"]}]}"#,
              prompts: ["What is the capital of France?", "Find the latest news about Mars.", "Hi, how are you?", "Search for cheap flights to Rome.", "What is 1 + 1?"]),
    ]
}
