import net from 'node:net';

/**
 * A TCP proxy a test controls, to partition one client from one server while everything else stays connected.
 * `cut()` is a partition as a network makes one: nothing crosses in either direction, yet no connection is closed (no
 * RST, no FIN), so the client learns of it only by its own timeouts; connections opened during the cut are accepted
 * and get no answer, like a SYN into a black hole that the kernel happened to complete. `heal()` lets everything
 * held flow again, late, as TCP retransmission would deliver it.
 */
export class TcpProxy {
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private partitioned = false;
  cuts = 0;

  private readonly server: net.Server;
  address = '';

  private constructor(target: string) {
    const [host, port] = splitAddress(target);
    this.server = net.createServer((client) => this.accept(client, host, port));
  }

  /** Listens on a free port of 127.0.0.1 and forwards each connection to `target` ("host:port"). */
  static async start(target: string): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy.address = `127.0.0.1:${(proxy.server.address() as net.AddressInfo).port}`;
    return proxy;
  }

  get isCut(): boolean {
    return this.partitioned;
  }

  private accept(client: net.Socket, host: string, port: number): void {
    const upstream = net.connect(port, host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    if (this.partitioned) this.hold(pair);
    else this.flow(pair);
  }

  private flow({ client, upstream }: { client: net.Socket; upstream: net.Socket }): void {
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private hold({ client, upstream }: { client: net.Socket; upstream: net.Socket }): void {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  }

  /** Start the partition: every connection, open or opened meanwhile, is held. */
  cut(): void {
    if (this.partitioned) return;
    this.partitioned = true;
    this.cuts += 1;
    for (const pair of this.pairs) this.hold(pair);
  }

  /** End the partition: what was held is delivered, and new traffic flows. */
  heal(): void {
    if (!this.partitioned) return;
    this.partitioned = false;
    for (const pair of this.pairs) this.flow(pair);
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at) || '127.0.0.1', Number(address.slice(at + 1))];
}
