/** "3 h 20 min" / "3小时20分" style duration of a clock offset. */
export function offsetText(ms: number, language: string): string {
  const minutes = Math.round(Math.abs(ms) / 60_000)
  const h = Math.floor(minutes / 60)
  const m = minutes % 60
  if (language === 'en')
    return [h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ') || '0 min'
  return [h ? `${h}小时` : '', m ? `${m}分钟` : ''].join('') || '0分钟'
}
