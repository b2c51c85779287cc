/** The policy server's tokenizer: observations are tokenised by the same tokenizer the policy was sampled with. */
export interface Tokenizer {
  /** Token ids of `text`, without special tokens added (no BOS). */
  tokenize(text: string): Promise<number[]>;
  detokenize(tokenIds: readonly number[]): Promise<string>;
}
