// A SPARQL 1.1 Protocol endpoint on Apache Jena ARQ, for hopgate's parity tests (Apache-2.0).
//
// Debian packages Jena's libraries (libapache-jena-java) but no Fuseki, so the
// tests run ARQ, the reference SPARQL implementation, behind this small HTTP
// server on the JDK's own com.sun.net.httpserver. It answers what hopgate's
// remote store sends (tests/arq_server.py starts it):
//
//   POST /sparql   query=...  [default-graph-uri=...]* [named-graph-uri=...]*
//                  SELECT and ASK as SPARQL JSON results, CONSTRUCT as N-Triples
//   POST /update   a SPARQL Update as the body (application/sparql-update) or
//                  update=... (form); [using-graph-uri=...]* [using-named-graph-uri=...]*
//                  in the URL, added to every operation, as the SPARQL 1.1 Protocol says
//   POST /store?graph=IRI   N-Triples added to that graph (Graph Store Protocol)
//
// One in-memory transactional dataset; requests run one at a time, each in a
// transaction. Run with: java -cp JENA_CLASSPATH ArqEndpoint.java PORT
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.jena.graph.Node;
import org.apache.jena.graph.NodeFactory;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryExecutionFactory;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.ReadWrite;
import org.apache.jena.query.ResultSetFormatter;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.riot.RDFParser;
import org.apache.jena.riot.system.StreamRDFBase;
import org.apache.jena.sparql.core.DatasetDescription;
import org.apache.jena.sparql.core.DatasetGraph;
import org.apache.jena.sparql.core.DatasetGraphFactory;
import org.apache.jena.sparql.core.DynamicDatasets;
import org.apache.jena.sparql.modify.request.UpdateAdd;
import org.apache.jena.sparql.modify.request.UpdateBinaryOp;
import org.apache.jena.sparql.modify.request.UpdateMove;
import org.apache.jena.sparql.modify.request.UpdateWithUsing;
import org.apache.jena.update.Update;
import org.apache.jena.update.UpdateAction;
import org.apache.jena.update.UpdateFactory;
import org.apache.jena.update.UpdateRequest;

public class ArqEndpoint {
    private static final DatasetGraph DATA = DatasetGraphFactory.createTxnMem();

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
        server.createContext("/sparql", exchange -> answer(exchange, ArqEndpoint::query));
        server.createContext("/update", exchange -> answer(exchange, ArqEndpoint::update));
        server.createContext("/store", exchange -> answer(exchange, ArqEndpoint::store));
        server.setExecutor(null); // one request at a time
        server.start();
        System.out.println("ArqEndpoint listening on " + port);
    }

    interface Handler {
        byte[] handle(HttpExchange exchange, Map<String, List<String>> params, byte[] body)
                throws Exception;
    }

    private static void answer(HttpExchange exchange, Handler handler) throws IOException {
        try {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Map<String, List<String>> params = parse(exchange.getRequestURI().getRawQuery());
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if (type != null && type.startsWith("application/x-www-form-urlencoded")) {
                parse(new String(body, StandardCharsets.UTF_8)).forEach(
                        (k, v) -> params.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
            }
            byte[] out = handler.handle(exchange, params, body);
            exchange.sendResponseHeaders(out.length == 0 ? 204 : 200, out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                try (OutputStream stream = exchange.getResponseBody()) {
                    stream.write(out);
                }
            }
        } catch (Exception exc) {
            byte[] out = ("ARQ: " + exc).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            boolean parse = exc instanceof org.apache.jena.query.QueryParseException;
            exchange.sendResponseHeaders(parse ? 400 : 500, out.length);
            try (OutputStream stream = exchange.getResponseBody()) {
                stream.write(out);
            }
        } finally {
            exchange.close();
        }
    }

    private static Map<String, List<String>> parse(String raw) {
        Map<String, List<String>> found = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return found;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            found.computeIfAbsent(key, x -> new ArrayList<>()).add(value);
        }
        return found;
    }

    private static byte[] query(HttpExchange exchange, Map<String, List<String>> params, byte[] body) {
        String text = params.containsKey("query")
                ? params.get("query").get(0)
                : new String(body, StandardCharsets.UTF_8);
        Query query = QueryFactory.create(text);
        List<String> defaults = params.getOrDefault("default-graph-uri", List.of());
        List<String> named = params.getOrDefault("named-graph-uri", List.of());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DATA.begin(ReadWrite.READ);
        try {
            DatasetGraph view = defaults.isEmpty() && named.isEmpty()
                    ? DATA
                    : DynamicDatasets.dynamicDataset(DatasetDescription.create(defaults, named), DATA, false);
            Dataset dataset = DatasetFactory.wrap(view);
            try (QueryExecution execution = QueryExecutionFactory.create(query, dataset)) {
                if (query.isSelectType()) {
                    exchange.getResponseHeaders().set("Content-Type", "application/sparql-results+json");
                    ResultSetFormatter.outputAsJSON(out, execution.execSelect());
                } else if (query.isAskType()) {
                    exchange.getResponseHeaders().set("Content-Type", "application/sparql-results+json");
                    ResultSetFormatter.outputAsJSON(out, execution.execAsk());
                } else {
                    exchange.getResponseHeaders().set("Content-Type", "application/n-triples");
                    Model model = query.isConstructType() ? execution.execConstruct() : execution.execDescribe();
                    RDFDataMgr.write(out, model, Lang.NTRIPLES);
                }
            }
        } finally {
            DATA.end();
        }
        return out.toByteArray();
    }

    private static byte[] update(HttpExchange exchange, Map<String, List<String>> params, byte[] body) {
        String text = params.containsKey("update")
                ? params.get("update").get(0)
                : new String(body, StandardCharsets.UTF_8);
        UpdateRequest request = UpdateFactory.create(text);
        List<String> using = params.getOrDefault("using-graph-uri", List.of());
        List<String> usingNamed = params.getOrDefault("using-named-graph-uri", List.of());
        if (!using.isEmpty() || !usingNamed.isEmpty()) {
            for (Update operation : request.getOperations()) {
                if (operation instanceof UpdateWithUsing) {
                    UpdateWithUsing modify = (UpdateWithUsing) operation;
                    for (String graph : using) {
                        modify.addUsing(NodeFactory.createURI(graph));
                    }
                    for (String graph : usingNamed) {
                        modify.addUsingNamed(NodeFactory.createURI(graph));
                    }
                }
            }
        }
        DATA.begin(ReadWrite.WRITE);
        try {
            for (Update operation : request.getOperations()) {
                if (operation instanceof UpdateBinaryOp && !((UpdateBinaryOp) operation).getSrc().isDefault()) {
                    // Jena 4.5 (Debian) refuses ADD, MOVE and COPY of any existing named
                    // graph ("Invalid source target for operation"): done here instead.
                    binary((UpdateBinaryOp) operation);
                } else {
                    UpdateAction.execute(new UpdateRequest(operation), DATA);
                }
            }
            DATA.commit();
        } catch (RuntimeException exc) {
            DATA.abort();
            throw exc;
        } finally {
            DATA.end();
        }
        return new byte[0];
    }

    private static void binary(UpdateBinaryOp operation) {
        Node source = operation.getSrc().getGraph();
        Node target = operation.getDest().getGraph();
        if (source == null || target == null) {
            throw new UnsupportedOperationException("only named graphs: " + operation);
        }
        if (source.equals(target)) {
            return;
        }
        if (!DATA.containsGraph(source)) {
            if (operation.getSilent()) {
                return;
            }
            throw new IllegalArgumentException("No such graph: " + source);
        }
        List<org.apache.jena.sparql.core.Quad> quads = new ArrayList<>();
        DATA.find(source, Node.ANY, Node.ANY, Node.ANY).forEachRemaining(quads::add);
        if (!(operation instanceof UpdateAdd)) {
            DATA.deleteAny(target, Node.ANY, Node.ANY, Node.ANY);
        }
        for (org.apache.jena.sparql.core.Quad quad : quads) {
            DATA.add(target, quad.getSubject(), quad.getPredicate(), quad.getObject());
        }
        if (operation instanceof UpdateMove) {
            DATA.deleteAny(source, Node.ANY, Node.ANY, Node.ANY);
        }
    }

    private static byte[] store(HttpExchange exchange, Map<String, List<String>> params, byte[] body) {
        Node graph = NodeFactory.createURI(params.get("graph").get(0));
        DATA.begin(ReadWrite.WRITE);
        try {
            RDFParser.create()
                    .fromString(new String(body, StandardCharsets.UTF_8))
                    .lang(Lang.NTRIPLES)
                    .parse(new StreamRDFBase() {
                        @Override
                        public void triple(org.apache.jena.graph.Triple triple) {
                            DATA.add(graph, triple.getSubject(), triple.getPredicate(), triple.getObject());
                        }
                    });
            DATA.commit();
        } catch (RuntimeException exc) {
            DATA.abort();
            throw exc;
        } finally {
            DATA.end();
        }
        return new byte[0];
    }
}
