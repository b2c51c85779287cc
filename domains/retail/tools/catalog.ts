import { defineTool, selectOne, z } from 'finalstate/domain';

export const getProduct = defineTool({
  name: 'get_product',
  description:
    "Get a product by SKU: name, category, today's price, whether it is final sale, units in stock and the restock date when out of stock.",
  input: { sku: z.string().describe('The product SKU, e.g. SKU-HDP-200.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      `SELECT p.sku, p.name, p.category, p.price, p.final_sale, COALESCE(i.on_hand, 0) AS on_hand, i.restock_date
         FROM products p LEFT JOIN inventory i ON i.sku = p.sku WHERE p.sku = $1`,
      [args.sku],
      `No product ${args.sku}.`,
    );
  },
});
