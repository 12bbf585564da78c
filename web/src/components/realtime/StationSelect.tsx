import { Select } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { stationNamesQuery } from '../../api/station/queries'
import { usePreferredStation } from './preferredStation'

export interface StationSelectProps {
  value: string | undefined
  onChange: (id: string | undefined) => void
  placeholder: string
  allowClear?: boolean
  testId?: string
  style?: React.CSSProperties
  /**
   * Pages that show nothing without a station open on the user's last used (else first) one and
   * remember each pick ([`usePreferredStation`]).
   */
  autoPick?: boolean
}

/** The caller's stations by name (searchable). */
export default function StationSelect({
  value,
  onChange,
  placeholder,
  allowClear = true,
  testId,
  style,
  autoPick = false,
}: StationSelectProps) {
  const { data: stations, isPending } = useQuery(stationNamesQuery())
  usePreferredStation(value, onChange, autoPick)
  return (
    <Select
      data-testid={testId}
      showSearch={{ optionFilterProp: 'label' }}
      allowClear={allowClear}
      loading={isPending}
      placeholder={placeholder}
      value={value}
      onChange={(v: string | undefined) => onChange(v || undefined)}
      options={(stations ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
      style={{ minWidth: 220, ...style }}
    />
  )
}
