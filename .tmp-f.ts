import { countTextTokens as c } from './src/infrastructure/tokenizer.js';
const LN = /^[\p{L}\p{N}]$/u, CONT = /^[\p{L}\p{M}\p{N}']$/u, WS = /^\s$/u;
function cpBefore(s: string, i: number) { const lo = s.charCodeAt(i-1); if (lo>=0xdc00&&lo<=0xdfff&&i>=2){const hi=s.charCodeAt(i-2); if(hi>=0xd800&&hi<=0xdbff) return s.codePointAt(i-2)!;} return lo; }
function isB(s: string, p: number) {
  const prev = s.charCodeAt(p-1); const next = s.codePointAt(p)!;
  if (prev===10||prev===13) return next!==0x2f && !WS.test(String.fromCodePoint(next));
  return LN.test(String.fromCodePoint(cpBefore(s,p))) && !CONT.test(String.fromCodePoint(next));
}
const alphabet = ['\n','\r','\r\n',' ','  ','\t','/','//','a','Ab','B','1','12','123','.','}','{','"',"'","'s","'S","'ll",'é','e\u0301','\u0301','中','😀','\u00a0','\u2028','-','#','[',']','<','|','>','\ufeff','\ud800','\udc00','²','ǅ','ʰ','ß','İ','_','$','0','\u3000','\u0085','\u000b','<|endoftext|>','Ⅻ','\u200d','\u0300','ـ'];
let bad = 0, checks = 0;
const t0 = performance.now();
while (performance.now() - t0 < 60000) {
  const len = 1+Math.floor(Math.random()*10);
  let s=''; for(let i=0;i<len;i++) s+=alphabet[Math.floor(Math.random()*alphabet.length)];
  const whole = c(s);
  for (let p=1;p<s.length;p++) if (isB(s,p)) { checks++; if (whole !== c(s.slice(0,p))+c(s.slice(p))) { bad++; if (bad<10) console.log(JSON.stringify(s),p); } }
}
console.log('checks', checks, 'bad', bad);
