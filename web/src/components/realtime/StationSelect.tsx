import { Select } from 'antd'
import { useEffect, useState } from 'react'
import { stationNamesAndIds, type NameAndId } from '../../api/station/station'

export interface StationSelectProps {
  value: string | undefined
  onChange: (id: string | undefined) => void
  placeholder: string
  allowClear?: boolean
  testId?: string
  style?: React.CSSProperties
}

/** The caller's stations by name (searchable). */
export default function StationSelect({
  value,
  onChange,
  placeholder,
  allowClear = true,
  testId,
  style,
}: StationSelectProps) {
  const [stations, setStations] = useState<NameAndId[] | null>(null)
  useEffect(() => {
    let live = true
    stationNamesAndIds().then(
      (list) => live && setStations(list),
      () => live && setStations([]),
    )
    return () => {
      live = false
    }
  }, [])
  return (
    <Select
      data-testid={testId}
      showSearch={{ optionFilterProp: 'label' }}
      allowClear={allowClear}
      loading={stations === null}
      placeholder={placeholder}
      value={value}
      onChange={(v: string | undefined) => onChange(v || undefined)}
      options={(stations ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
      style={{ minWidth: 220, ...style }}
    />
  )
}
