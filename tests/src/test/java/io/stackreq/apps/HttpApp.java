package io.stackreq.apps;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;

/**
 * An HTTP service under load, on loopback only: a Netty ({@code io.netty:netty-codec-http} 4.1)
 * server on 127.0.0.1 (an ephemeral port; one acceptor thread, two event-loop threads) renders a
 * catalog page as JSON for each {@code GET /catalog?page=P&size=S}; four client threads send
 * requests with the JDK's {@link HttpClient} (HTTP/1.1, kept-alive connections), 40 each per
 * round, and check every status and body. Bounded in requests (the rounds) and in time: a request
 * without its response within 10 s fails the round.
 */
final class HttpApp extends App {
    private static final int CLIENTS = 4;
    private static final int REQUESTS_PER_ROUND = 40;
    private EventLoopGroup acceptor;
    private EventLoopGroup workers;
    private Channel server;
    private HttpClient client;
    private URI base;

    @Override public String name() { return "http"; }

    @Override public List<String> ownPackages() { return List.of("io.netty.", "jdk.internal.net.http."); }

    @Override public int threads() { return CLIENTS; }

    @Override public void setUp() throws Exception {
        acceptor = new NioEventLoopGroup(1);
        workers = new NioEventLoopGroup(2);
        server = new ServerBootstrap().group(acceptor, workers).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16),
                                new CatalogHandler());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        base = URI.create("http://127.0.0.1:" + port + "/catalog");
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Override public Worker worker(int thread) {
        SplittableRandom random = new SplittableRandom(500 + thread);
        return index -> {
            long sum = 0;
            for (int i = 0; i < REQUESTS_PER_ROUND; i++) {
                int page = random.nextInt(1000);
                int size = 20 + random.nextInt(41);
                HttpRequest request = HttpRequest.newBuilder(URI.create(base + "?page=" + page + "&size=" + size))
                        .timeout(Duration.ofSeconds(10)).GET().build();
                HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                String body = response.body();
                if (response.statusCode() != 200 || !body.startsWith("{\"page\":" + page + ",")) {
                    throw new IllegalStateException("GET " + request.uri() + ": " + response.statusCode() + " "
                            + body.substring(0, Math.min(80, body.length())));
                }
                sum += body.length();
            }
            return sum;
        };
    }

    @Override public void tearDown() throws Exception {
        server.close().sync();
        acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }

    /** GET /catalog?page=P&size=S: a page of S products, each with a price, tags and a checksum. */
    private static final class CatalogHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext context, FullHttpRequest request) {
            QueryStringDecoder query = new QueryStringDecoder(request.uri());
            FullHttpResponse response;
            if (!query.path().equals("/catalog")) {
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND);
            } else {
                int page = Integer.parseInt(query.parameters().get("page").get(0));
                int size = Integer.parseInt(query.parameters().get("size").get(0));
                ByteBuf body = Unpooled.copiedBuffer(render(page, size), StandardCharsets.UTF_8);
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            }
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                context.writeAndFlush(response);
            } else {
                context.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        static String render(int page, int size) {
            SplittableRandom random = new SplittableRandom(page);
            StringBuilder json = new StringBuilder(size * 120).append("{\"page\":").append(page).append(",\"items\":[");
            CRC32 crc = new CRC32();
            for (int i = 0; i < size; i++) {
                String name = "product-" + Long.toString(random.nextLong() >>> 1, 36);
                crc.update(name.getBytes(StandardCharsets.UTF_8));
                json.append(i == 0 ? "" : ",").append("{\"id\":").append(page * 1000L + i)
                        .append(",\"name\":\"").append(name)
                        .append("\",\"price\":").append(String.format(Locale.ROOT, "%.2f", random.nextDouble() * 500))
                        .append(",\"tags\":[\"t").append(random.nextInt(40)).append("\",\"t").append(random.nextInt(40))
                        .append("\"],\"crc\":").append(crc.getValue()).append('}');
            }
            return json.append("]}").toString();
        }
    }
}
